import type { AnyStateMachine } from 'xstate';

/** One `reply(…)` found in a machine: where it is, and its text when it is static. */
export interface ReplyTextSite {
  /** The state's id path (`appointment.asking`) and where in it: `entry`, `exit`, `on sms.reply`. */
  where: string;
  /** The text given to `reply('…')`; null for a function, whose text is known only when sent. */
  text: string | null;
}

interface ActionLike {
  type?: unknown;
  replyText?: unknown;
}

interface NodeLike {
  id: string;
  entry: readonly unknown[];
  exit: readonly unknown[];
  transitions: ReadonlyMap<string, readonly { actions: readonly unknown[] }[]>;
  always?: readonly { actions: readonly unknown[] }[];
  states: Record<string, NodeLike>;
}

/**
 * Walks a machine's states (entry, exit, every transition, `after` and `always`) and lists the
 * `reply` actions it finds, inline or named in `setup({ actions })`. Each text is listed once per
 * place it is used.
 *
 * @example
 * collectReplyTexts(bot.machine);
 * // [{ where: 'appointment.asking entry', text: 'Reply YES to confirm.' }, …]
 */
export function collectReplyTexts(machine: AnyStateMachine): ReplyTextSite[] {
  const named = (machine.implementations.actions ?? {}) as Record<string, unknown>;
  const sites: ReplyTextSite[] = [];
  const add = (where: string, actions: readonly unknown[]) => {
    for (const action of actions) {
      const resolved = resolve(action, named);
      if (resolved && 'replyText' in resolved) {
        const text = typeof resolved.replyText === 'string' ? resolved.replyText : null;
        sites.push({ where, text });
      }
    }
  };
  const visit = (node: NodeLike) => {
    add(`${node.id} entry`, node.entry);
    add(`${node.id} exit`, node.exit);
    for (const [event, transitions] of node.transitions) {
      for (const transition of transitions)
        add(`${node.id} ${eventLabel(event, node.id)}`, transition.actions);
    }
    for (const transition of node.always ?? []) add(`${node.id} always`, transition.actions);
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root as unknown as NodeLike);
  return sites;
}

/** An inline action is the action; a named one (`'greet'`, `{ type: 'greet' }`) is looked up. */
function resolve(action: unknown, named: Record<string, unknown>): ActionLike | undefined {
  if (typeof action === 'string') return named[action] as ActionLike | undefined;
  if (typeof action === 'function') return action as ActionLike;
  if (typeof action === 'object' && action !== null) {
    const type = (action as ActionLike).type;
    return typeof type === 'string' ? (named[type] as ActionLike | undefined) : undefined;
  }
  return undefined;
}

/** XState names delayed transitions `xstate.after.<delay>.<state id>`; show them as `after <delay>`. */
function eventLabel(event: string, stateId: string): string {
  const prefix = 'xstate.after.';
  const suffix = `.${stateId}`;
  if (!event.startsWith(prefix) || !event.endsWith(suffix)) return `on ${event}`;
  return `after ${event.slice(prefix.length, -suffix.length)}`;
}
