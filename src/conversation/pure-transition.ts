import {
  type AnyActorRef,
  type AnyEventObject,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  fromTransition,
} from 'xstate';

/** An action XState would run, returned as data (what `transition()` returns beside the snapshot). */
export type ExecutableAction = ReturnType<typeof import('xstate').transition>[1][number];

/**
 * XState's `transition()` and `initialTransition()`, the pure functions that advance a machine and
 * return its actions as data, without their fixed cost per call. Each of XState's calls builds
 * a throwaway actor of the machine for its scope (`createInertActorScope`), and that actor's
 * constructor computes the machine's initial snapshot: a second transition each turn, which
 * costs more the bigger the bot (10 µs for the bench's echo bot, 45 µs for the reference
 * survey). Here the inert actor of a machine is made once and kept; each call only gives it a
 * fresh actor system (from an actor of a trivial logic), as XState's own scope does, so actors a
 * step spawns with a `systemId` never meet those of another step.
 *
 * The scope is otherwise XState's: `defer`, `emit`, `logger` and `stopChild` do nothing, and the
 * actions are collected, never run. Calls are synchronous, so one machine's kept actor serves
 * every conversation in turn.
 */
export function pureTransition(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: AnyEventObject,
): [AnyMachineSnapshot, ExecutableAction[]] {
  const actions: ExecutableAction[] = [];
  const next = machine.transition(snapshot, event, inertScope(machine, actions));
  return [next, actions];
}

/** `initialTransition(machine, input)`, with the kept inert actor (see `pureTransition`). */
export function pureInitialTransition(
  machine: AnyStateMachine,
  input: unknown,
): [AnyMachineSnapshot, ExecutableAction[]] {
  const actions: ExecutableAction[] = [];
  const first = machine.getInitialSnapshot(inertScope(machine, actions), input);
  return [first, actions];
}

const inertActors = new WeakMap<AnyStateMachine, AnyActorRef>();
const trivialLogic = fromTransition((state: null) => state, null);
const nothing = () => {};

function inertScope(machine: AnyStateMachine, actions: ExecutableAction[]) {
  let self = inertActors.get(machine);
  if (!self) {
    self = createActor(machine);
    inertActors.set(machine, self);
  }
  // A fresh system for each call, as createInertActorScope gives: children spawned by this step
  // register in it (their parent's system), not in one every conversation shares.
  const system = createActor(trivialLogic).system;
  (self as { system: unknown }).system = system;
  return {
    self,
    defer: nothing,
    id: '',
    logger: nothing,
    sessionId: '',
    stopChild: nothing,
    system,
    emit: nothing,
    actionExecutor: (action: ExecutableAction) => {
      actions.push(action);
    },
  } as unknown as Parameters<AnyStateMachine['transition']>[2];
}
