import { builtInEventTypes } from './outbound-event.ts';

/** A bot's own type: lowercase words joined by dots, at least two (as `notify` checks). */
const dottedName = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
/** The namespaces of replyflow's own types: a name in them that is not one is a typo. */
export const reservedEventNamespaces = ['conversation.', 'result.'] as const;

/**
 * Why a subscription's `types` entry can never match an event, or undefined when it can: one
 * of replyflow's types, or a bot's own (a dotted lowercase name, as `notify` takes, outside
 * `conversation.*` and `result.*`). A typo would otherwise get nothing, silently.
 */
export function eventTypeProblem(type: string): string | undefined {
  if ((builtInEventTypes as readonly string[]).includes(type)) return undefined;
  const builtIn = builtInEventTypes.join(', ');
  const guess = closest(type.toLowerCase());
  const hint = guess ? `did you mean '${guess}'? ` : '';
  if (reservedEventNamespaces.some((prefix) => type.startsWith(prefix))) {
    return `'${type}' is not an event replyflow emits: ${hint}its types are ${builtIn} (conversation.* and result.* are replyflow's)`;
  }
  if (!dottedName.test(type)) {
    return `'${type}' is not an event type: ${hint}replyflow's are ${builtIn}, and a bot's own (notify) are lowercase words joined by dots, such as appointment.confirmed`;
  }
  return undefined;
}

/** The built-in type nearest to `type`, when it is a few edits away. */
function closest(type: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of builtInEventTypes) {
    const distance = editDistance(type, name);
    if (distance <= 3 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution);
    }
    previous = row;
  }
  return previous[b.length]!;
}
