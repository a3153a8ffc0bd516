import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Store } from '../store/store.ts';
import { sameVersion, versionChanged } from './resume-snapshot.ts';
import { statePath } from './state-path.ts';

/** What happens to a group of live conversations when the new definitions are served. */
export type LiveVerdict =
  /** Same structure (texts and code may differ): they resume as they are. */
  | 'unchanged'
  /** Another structure, and the bot has `migrate`: it decides (resume or end). */
  | 'migrate'
  /** Another structure and no `migrate`: they end with `version_changed` at their next event. */
  | 'ends'
  /** Their bot is no longer loaded: they end with `BOT_REMOVED` at their next event. */
  | 'bot removed';

/** Live conversations of one bot, version and state. */
export interface LiveGroup {
  bot: string;
  version: string;
  /** The state as a dotted path (`booking.asking`). */
  state: string;
  count: number;
  /** Whether the new definition of the bot still has this state. */
  stateExists: boolean;
  /**
   * What changed between the version they were saved with and the bot now: nothing the version
   * covers (`'same structure'`: texts and code may differ, they resume), the machine's structure
   * (`'structure'`: states, transitions, targets, guard and action names, timers), or the bot is
   * gone (`'bot removed'`).
   */
  change: 'same structure' | 'structure' | 'bot removed';
  verdict: LiveVerdict;
  /** The end code they would get, for the verdicts that end them. */
  endCode?: string;
}

export interface LiveReport {
  groups: LiveGroup[];
  /** Live conversations in all. */
  total: number;
  /** Groups whose conversations would end with no `migrate` to keep them (`ends`, `bot removed`). */
  breaking: LiveGroup[];
}

/**
 * Counts the live (active) conversations of the store per bot, version and state, and says,
 * against the bots about to be served, which would resume, go through `migrate`, or end. Reads
 * only: nothing in the store changes.
 */
export async function checkLiveConversations(
  store: Store,
  registry: BotRegistry,
  pageSize = 500,
): Promise<LiveReport> {
  const groups = new Map<string, LiveGroup>();
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const page = await store.scanConversations(cursor, pageSize);
    cursor = page.cursor;
    for (const record of page.records) {
      const id = `${record.location}:${record.phone}`;
      if (record.status !== 'active' || seen.has(id)) continue;
      seen.add(id);
      const value = (record.snapshot as { value?: unknown } | null)?.value;
      const state = statePath(value);
      const key = JSON.stringify([record.botId, record.botVersion, state]);
      const group =
        groups.get(key) ?? judge(registry, record.botId, record.botVersion, state, value);
      group.count++;
      groups.set(key, group);
    }
  } while (cursor !== '0');
  const sorted = [...groups.values()].sort(
    (a, b) =>
      a.bot.localeCompare(b.bot) ||
      a.version.localeCompare(b.version) ||
      a.state.localeCompare(b.state),
  );
  return {
    groups: sorted,
    total: sorted.reduce((sum, group) => sum + group.count, 0),
    breaking: sorted.filter((group) => group.verdict === 'ends' || group.verdict === 'bot removed'),
  };
}

function judge(
  registry: BotRegistry,
  botId: string,
  version: string,
  state: string,
  value: unknown,
): LiveGroup {
  const group = { bot: botId, version, state, count: 0 };
  const bot = registry.bots.get(botId);
  if (!bot) {
    return {
      ...group,
      stateExists: false,
      change: 'bot removed',
      verdict: 'bot removed',
      endCode: 'BOT_REMOVED',
    };
  }
  const stateExists = hasState(bot.machine.root as unknown as NodeLike, value);
  if (sameVersion(version, bot)) {
    return { ...group, stateExists, change: 'same structure', verdict: 'unchanged' };
  }
  if (bot.migrate) return { ...group, stateExists, change: 'structure', verdict: 'migrate' };
  return { ...group, stateExists, change: 'structure', verdict: 'ends', endCode: versionChanged };
}

interface NodeLike {
  states: Record<string, NodeLike>;
}

/** Whether every path of a state value leads to a state of the machine. */
function hasState(node: NodeLike, value: unknown): boolean {
  if (typeof value === 'string') return value in node.states;
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value as Record<string, unknown>).every(([key, child]) => {
    const next = node.states[key];
    return next !== undefined && (Object.keys(next.states).length === 0 || hasState(next, child));
  });
}
