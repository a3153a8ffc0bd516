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
 * A short hash of what a machine does, so that a conversation saved by one definition is never
 * resumed blindly by another (it is migrated or ended instead). It covers:
 *
 * - **states**: every state node, nested, with its id, type (atomic, compound, parallel, final,
 *   history) and initial state;
 * - **transitions**: for each state, each event it handles (`on`, `after`, `always`), in order,
 *   with its targets, guard, actions and `reenter`;
 * - **actions and guards**: a name given in `setup({ actions, guards })` counts by its name
 *   AND the source text of its implementation; an inline function counts by its source text
 *   (`fn.toString()`, normalised); built-in actions (`assign`, `raise`, `emit`, `reply()`,
 *   `endConversation()`…) count by their kind and arguments, so a reply's text, an assigned
 *   value or an end code is part of the version;
 * - **delays**: every `after` delay, by its written name (`'24h'`) or, for a delay of
 *   `setup({ delays })`, by its name and value (or source text);
 * - the initial `context`, invoked actors' sources, and XState's own `version` field.
 *
 * What it cannot see: code outside the machine that a function calls (a helper imported from
 * another file, a constant it reads, the strings of an i18n table). Change those and bump the
 * bot's explicit `version`. Source text is read through `normalizeSource`, so tsx and vitest
 * give one version; an edit inside a function (even a comment-free refactor) errs on the side
 * of "changed", which a `migrate` that returns the snapshot as it is answers cheaply.
 */
export function machineVersion(machine: AnyStateMachine): string {
  const implementations = machine.implementations as unknown as Record<string, unknown>;
  const text = JSON.stringify({
    root: describeNode(machine.root as unknown as NodeLike),
    context: describe((machine.config as { context?: unknown }).context),
    actions: describe(implementations.actions ?? {}),
    guards: describe(implementations.guards ?? {}),
    delays: describe(implementations.delays ?? {}),
    actors: describe(implementations.actors ?? {}),
    version: machine.version ?? null,
  });
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
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
