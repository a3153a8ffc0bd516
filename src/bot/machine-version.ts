import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import { normalizeSource } from './normalize-source.ts';

/** The parts of an XState state node the version reads (XState keeps them on `StateNode`). */
interface NodeLike {
  id: string;
  key: string;
  type: string;
  history: unknown;
  initial?: { target?: readonly { id: string }[] };
  states: Record<string, NodeLike>;
  entry: readonly unknown[];
  exit: readonly unknown[];
  transitions: Map<string, readonly TransitionLike[]>;
  always?: readonly TransitionLike[];
  config: { invoke?: unknown; tags?: unknown };
}

interface TransitionLike {
  eventType: string;
  target?: readonly { id: string }[];
  guard?: unknown;
  actions: readonly unknown[];
  reenter?: boolean;
}

/**
 * A short hash of a machine's **structure**: what a stored conversation needs to resume. A
 * conversation saved under one structure is never resumed blindly by another (it is migrated or
 * ended instead); a change that keeps the structure keeps live conversations going. It covers:
 *
 * - **states**: every state node, nested, with its id, type (atomic, compound, parallel, final,
 *   history), history kind and initial state;
 * - **transitions**: for each state, each event it handles (`on`, `after`, `always`), in order,
 *   with its targets and `reenter`, the name of its guard (`'inline'` for a function) and the
 *   names of its named actions; an `after` delay counts by its written name (`'24h'`), part of
 *   the event's name, which the timers a conversation holds are kept under;
 * - the names of the entry and exit actions of `setup({ actions })`, invoked actors' sources,
 *   and XState's own `version` field.
 *
 * What does not count (`machineContentVersion` sees it): reply texts, the code of actions and
 * guards, assigned values, end codes, the values of `setup({ delays })`, the initial context.
 * So fixing a typo in a text, or a bug in a guard, keeps the conversations that are running.
 */
export function machineVersion(machine: AnyStateMachine): string {
  return hash({
    root: structureOf(machine.root as unknown as NodeLike),
    version: machine.version ?? null,
  });
}

/**
 * A short hash of everything a machine does: its structure and its content (texts, the source
 * text of actions and guards, assigned values, delays' values, the initial context). Used to
 * tell "same structure, other content" apart, and to resume conversations saved before versions
 * were structural (their stored version is this hash, then called the machine's version).
 *
 * What it cannot see: code outside the machine that a function calls (a helper imported from
 * another file, a constant it reads, the strings of an i18n table). Source text is read through
 * `normalizeSource`, so tsx and vitest give one hash.
 */
export function machineContentVersion(machine: AnyStateMachine): string {
  const implementations = machine.implementations as unknown as Record<string, unknown>;
  return hash({
    root: describeNode(machine.root as unknown as NodeLike),
    context: describe((machine.config as { context?: unknown }).context),
    actions: describe(implementations.actions ?? {}),
    guards: describe(implementations.guards ?? {}),
    delays: describe(implementations.delays ?? {}),
    actors: describe(implementations.actors ?? {}),
    version: machine.version ?? null,
  });
}

function hash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12);
}

function structureOf(node: NodeLike): unknown {
  return {
    id: node.id,
    type: node.type,
    history: node.history,
    initial: node.initial?.target?.map((target) => target.id),
    entry: names(node.entry),
    exit: names(node.exit),
    on: [...node.transitions].map(([event, list]) => [
      event,
      list.map((transition) => ({
        targets: transition.target?.map((target) => target.id),
        guard: guardName(transition.guard),
        actions: names(transition.actions),
        reenter: transition.reenter ?? false,
      })),
    ]),
    always: node.always?.map((transition) => ({
      targets: transition.target?.map((target) => target.id),
      guard: guardName(transition.guard),
      actions: names(transition.actions),
    })),
    invoke: describe(node.config.invoke),
    states: Object.values(node.states).map(structureOf),
  };
}

/** The names of the named actions of a list (`'notify'`, `{ type: 'notify' }`); inline ones and built-ins (`reply`, `assign`, the timers' raise) are content. */
function names(actions: readonly unknown[]): string[] {
  return actions.flatMap((action) => {
    if (typeof action === 'string') return [action];
    const type = (action as { type?: unknown } | null)?.type;
    if (typeof action === 'object' && typeof type === 'string') return [type];
    return [];
  });
}

/** A guard by its name; an inline one is `'inline'`; `and`/`or`/`not` by the guards they combine. */
function guardName(guard: unknown): unknown {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object') return (guard as { type?: unknown }).type ?? 'inline';
  const combined = guard as { check?: unknown; guards?: unknown[] };
  if (Array.isArray(combined.guards)) return { combines: combined.guards.map(guardName) };
  return 'inline';
}

function describeNode(node: NodeLike): unknown {
  return {
    id: node.id,
    type: node.type,
    history: node.history,
    initial: node.initial?.target?.map((target) => target.id),
    entry: node.entry.map((action) => describe(action)),
    exit: node.exit.map((action) => describe(action)),
    on: [...node.transitions].map(([event, list]) => [event, list.map(describeTransition)]),
    always: node.always?.map(describeTransition),
    invoke: describe(node.config.invoke),
    tags: describe(node.config.tags),
    states: Object.values(node.states).map(describeNode),
  };
}

function describeTransition(transition: TransitionLike): unknown {
  return {
    event: transition.eventType,
    targets: transition.target?.map((target) => target.id),
    guard: describe(transition.guard),
    actions: transition.actions.map((action) => describe(action)),
    reenter: transition.reenter ?? false,
  };
}

/** Keys XState adds to its built-in actions and guards: the same code for every use. */
const machinery = new Set(['resolve', 'execute', 'retryResolve', 'check']);

/**
 * A JSON-able description: functions by their source text plus their own properties (a
 * built-in action keeps its arguments there: `raise`'s event and delay, `reply`'s text);
 * objects key by key in a stable order; state nodes by id (they point at each other).
 */
function describe(value: unknown, seen = new Set<unknown>()): unknown {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object') {
    if (typeof value !== 'function') return value;
  }
  if (seen.has(value)) return '[cycle]';
  const node = value as { id?: unknown; machine?: unknown; parent?: unknown };
  if (typeof value === 'object' && 'machine' in node && 'parent' in node) return `#${node.id}`;
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => describe(item, seen));
    const own: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      if (typeof value === 'function' && machinery.has(key)) continue;
      own[key] = describe((value as Record<string, unknown>)[key], seen);
    }
    if (typeof value === 'function') {
      // `reply(text)` counts by its text: the function that emits it is replyflow's code,
      // which an upgrade of replyflow must not turn into a new version of every bot.
      if (own.type === 'xstate.emit' && 'text' in own) return { reply: own.text };
      // Built-ins (`assign`, `raise`, `emit`…) share one source text; their `type` and
      // arguments are in `own`. Anything else is the author's code.
      const builtIn = typeof own.type === 'string' && own.type.startsWith('xstate.');
      return builtIn ? own : { source: normalizeSource(value.toString()), ...own };
    }
    return own;
  } finally {
    seen.delete(value);
  }
}
