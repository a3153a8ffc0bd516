import type { AnyStateMachine } from 'xstate';
import { errorCodes, ReplyflowError } from '../errors.ts';
import { parseDuration } from './parse-duration.ts';

interface NodeLike {
  id: string;
  config: { after?: Record<string, unknown> };
  states: Record<string, NodeLike>;
}

/**
 * Lets bot authors write `after: { '24h': … }`. XState reads a string delay as the name of a
 * delay from `setup({ delays })` and, finding none, fires it at once; here every such name that
 * reads as a duration becomes a named delay of that length. A name that is neither defined nor a
 * duration is refused, naming the state, so a reminder never fires immediately by mistake.
 */
export function provideDurationDelays<TMachine extends AnyStateMachine>(
  botId: string,
  machine: TMachine,
): TMachine {
  const defined = (machine.implementations.delays ?? {}) as Record<string, unknown>;
  const delays: Record<string, number> = {};
  const visit = (node: NodeLike) => {
    for (const key of Object.keys(node.config.after ?? {})) {
      if (/^\d+$/.test(key) || key in defined || key in delays) continue;
      const ms = parseDuration(key);
      if (ms === undefined) {
        throw new ReplyflowError(
          errorCodes.BOT_DEFINITION_INVALID,
          `bot '${botId}', state '${node.id}': after '${key}' is neither a duration (24h, 30m, 3d, 1h30m) nor a delay defined in setup({ delays })`,
        );
      }
      delays[key] = ms;
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root as unknown as NodeLike);
  return Object.keys(delays).length === 0 ? machine : (machine.provide({ delays }) as TMachine);
}
