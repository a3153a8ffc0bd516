import type { AnyMachineSnapshot } from 'xstate';
import type { Bot, PersistedBotSnapshot } from '../bot/define-bot.ts';
import type { ConversationRecord } from '../store/records.ts';

/** The end code of a conversation whose bot changed version and could not be migrated. */
export const versionChanged = 'version_changed';

export type Resumed =
  | { ok: true; snapshot: AnyMachineSnapshot; migrated: boolean }
  | { ok: false; code: string; detail: string };

/**
 * Whether a conversation saved under `version` resumes as it is with `bot`: the same structure
 * (`bot.version`), or, for a conversation saved before versions were structural, the same
 * machine whole (`bot.contentVersion`, what its version was then).
 */
export function sameVersion(version: string, bot: Bot): boolean {
  return version === bot.version || version === bot.contentVersion;
}

/**
 * Brings a stored snapshot back to life for the bot as it is now. A snapshot of another
 * machine version goes through the bot's `migrate` hook when it has one; a snapshot that names
 * a state the machine no longer has, or that `migrate` declines, cannot resume: the caller ends
 * the run with the returned code. Never throws.
 */
export function resumeSnapshot(bot: Bot | undefined, record: ConversationRecord): Resumed {
  if (!bot) {
    return {
      ok: false,
      code: 'BOT_REMOVED',
      detail: `no bot '${record.botId}' is loaded any more`,
    };
  }
  let stored = record.snapshot;
  const migrated = !sameVersion(record.botVersion, bot);
  if (migrated) {
    if (!bot.migrate) {
      return {
        ok: false,
        code: versionChanged,
        detail: `snapshot of version ${record.botVersion}, bot is now ${bot.version}, and it has no migrate()`,
      };
    }
    try {
      stored = bot.migrate({
        snapshot: stored as PersistedBotSnapshot,
        fromVersion: record.botVersion,
        toVersion: bot.version,
      });
    } catch (error) {
      return {
        ok: false,
        code: versionChanged,
        detail: `migrate() threw: ${message(error)}`,
      };
    }
    if (stored === null || stored === undefined) {
      return {
        ok: false,
        code: versionChanged,
        detail: 'migrate() declined',
      };
    }
  }
  try {
    const snapshot = bot.machine.resolveState(
      stored as Parameters<Bot['machine']['resolveState']>[0],
    );
    return { ok: true, snapshot, migrated };
  } catch (error) {
    return {
      ok: false,
      code: versionChanged,
      detail: `the stored snapshot does not fit the machine: ${message(error)}`,
    };
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
