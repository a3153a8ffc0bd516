import type { BotRegistry } from '../../bot/bot-registry.ts';
import type { ConversationRecord } from '../../store/records.ts';

/** What the dev phone's side panel shows of a phone's conversation. */
export interface ConversationView {
  runId: string;
  bot: string;
  /** The version the conversation runs with. */
  version: string;
  /** The version of the bot loaded now; differs after a reload that changed the machine. */
  loadedVersion: string | undefined;
  status: ConversationRecord['status'];
  endedReason: string | undefined;
  /** The XState state value (`'asking'`, `{ survey: 'comment' }`). */
  state: unknown;
  /** Every active state's path (`['survey', 'survey.comment']`), as the statechart names them. */
  activePaths: string[];
  context: unknown;
  /** The phone opted out (STOP): it gets nothing but the opt-out confirmation until START. */
  optedOut: boolean;
  startedAt: number;
  updatedAt: number;
  /** Changes whenever the record does. */
  revision: string;
}

export function toConversationView(
  record: ConversationRecord,
  registry: BotRegistry,
  optedOut = false,
): ConversationView {
  const snapshot = (record.snapshot ?? {}) as { value?: unknown; context?: unknown };
  return {
    runId: record.runId,
    bot: record.botId,
    version: record.botVersion,
    loadedVersion: registry.bots.get(record.botId)?.version,
    status: record.status,
    endedReason: record.endedReason,
    state: snapshot.value,
    activePaths: activePaths(snapshot.value),
    context: snapshot.context,
    optedOut,
    startedAt: record.startedAt,
    updatedAt: record.updatedAt,
    revision: `${record.runId}:${record.seq}:${record.status}:${optedOut}`,
  };
}

/**
 * `{ a: { b: 'c' } }` → `['a', 'a.b', 'a.b.c']`; parallel regions each add their own. A machine
 * with no states of its own (value `{}`) is in `(machine)`, as the statechart draws it.
 */
export function activePaths(value: unknown): string[] {
  const paths = pathsOf(value);
  return paths.length > 0 ? paths : ['(machine)'];
}

function pathsOf(value: unknown, prefix = ''): string[] {
  if (typeof value === 'string') return [`${prefix}${value}`];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    `${prefix}${key}`,
    ...pathsOf(child, `${prefix}${key}.`),
  ]);
}

/** `asking`, `survey.comment`, or `a.b + c.d` for parallel regions: the leaves, for a notice. */
export function stateLabel(value: unknown): string {
  const paths = pathsOf(value);
  const leaves = paths.filter((p) => !paths.some((other) => other.startsWith(`${p}.`)));
  return leaves.join(' + ');
}
