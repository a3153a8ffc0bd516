import { loadConfig } from '../app/config.ts';
import { loadBots } from '../bot/load-bots.ts';
import {
  checkLiveConversations,
  type LiveGroup,
} from '../conversation/check-live-conversations.ts';
import { ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { formatTable } from './format-table.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

/** `replyflow bots check`, loaded when it runs (bots-check-command.ts defines its options). */
export async function runBotsCheck(options: { bots?: string; json?: boolean }): Promise<void> {
  try {
    process.exitCode = await check(options);
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow bots check: ${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  }
}

async function check(options: { bots?: string; json?: boolean }): Promise<number> {
  const config = await loadConfig(process.env);
  const { store, close } = openDeploymentStore(
    config,
    'bots check reads the live conversations',
    createLogger({ level: 'error' }),
  );
  try {
    const registry = await loadBots(options.bots ?? config.botsDir);
    const report = await checkLiveConversations(store, registry);
    if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      const rows = report.groups.map((group) => ({
        bot: group.bot,
        version: group.version,
        state: group.state,
        live: group.count,
        'state kept': group.stateExists ? 'yes' : 'NO',
        change: group.change === 'structure' ? 'STRUCTURE' : group.change,
        outcome: outcome(group),
      }));
      process.stdout.write(
        `${formatTable(rows, ['bot', 'version', 'state', 'live', 'state kept', 'change', 'outcome'])}\n\n`,
      );
      const ending = report.breaking.reduce((sum, group) => sum + group.count, 0);
      process.stdout.write(
        ending === 0
          ? `${report.total} live conversation(s); none would end for want of a migrate\n`
          : `${report.total} live conversation(s); ${ending} would END at their next event: give those bots a migrate(), or deploy when they are over\n`,
      );
    }
    return report.breaking.length === 0 ? 0 : 1;
  } finally {
    await close();
  }
}

function outcome(group: LiveGroup): string {
  switch (group.verdict) {
    case 'unchanged':
      return 'resumes (a change of texts or code keeps them)';
    case 'migrate':
      return 'migrate() decides';
    case 'ends':
      return `ENDS (${group.endCode}): new structure, no migrate()`;
    case 'bot removed':
      return `ENDS (${group.endCode}): bot no longer loaded`;
  }
}
