import { startState } from '../../conversation/count-activity.ts';
import type { ChartEdge } from '../../statechart/layout-statechart.ts';

/** Transition counts placed on a chart: per edge id, and those that match no edge. */
export interface MappedTransitions {
  edges: Record<string, number>;
  /** `'<from>><to>'` → count, for steps no drawn edge stands for (through an `always` state). */
  other: Record<string, number>;
}

type Edge = Pick<ChartEdge, 'id' | 'from' | 'to' | 'stays'>;

/** `a` is `b` or one of its ancestors (`answering` of `answering.score`). */
const covers = (a: string, b: string) => a === b || b.startsWith(`${a}.`);
const depth = (path: string) => path.split('.').length;

/**
 * Places the counted steps (`'<fromLeaves>><toLeaves>'`, `readBotFunnel`'s transitions) on the
 * statechart's edges: a step goes to the edge whose `from` is a left leaf or its ancestor and
 * whose `to` is an entered leaf or its ancestor (a compound target whose initial leaf was
 * entered), the most specific one (deepest source, then deepest target; the first drawn of
 * equal ones, as guarded twins between the same states cannot be told apart). A run's first
 * state (`'(start)>x'`) goes to the root's initial edge. In parallel states only the regions
 * that changed are matched. A step that matches no edge (it went through a transient `always`
 * state, or the chart changed since) is kept in `other`.
 */
export function mapTransitions(
  edges: readonly Edge[],
  transitions: Readonly<Record<string, number>>,
): MappedTransitions {
  const mapped: MappedTransitions = { edges: {}, other: {} };
  const rootInitial = edges.find((edge) => edge.from === '(initial)(machine)');
  for (const [step, count] of Object.entries(transitions)) {
    const cut = step.indexOf('>');
    const from = step.slice(0, cut);
    const to = step.slice(cut + 1);
    const edge = from === startState ? rootInitial : bestEdge(edges, from, to);
    if (cut > 0 && edge) mapped.edges[edge.id] = (mapped.edges[edge.id] ?? 0) + count;
    else mapped.other[step] = (mapped.other[step] ?? 0) + count;
  }
  return mapped;
}

function bestEdge(edges: readonly Edge[], from: string, to: string): Edge | undefined {
  let left = from.split(', ');
  let entered = to.split(', ');
  const changedLeft = left.filter((leaf) => !entered.includes(leaf));
  const changedEntered = entered.filter((leaf) => !left.includes(leaf));
  if (changedLeft.length > 0 && changedEntered.length > 0) {
    left = changedLeft;
    entered = changedEntered;
  }
  let best: Edge | undefined;
  let bestScore = -1;
  for (const edge of edges) {
    // A timer that stays (a reminder's loop) is no step between states.
    if (edge.from.startsWith('(initial)') || edge.stays) continue;
    if (!left.some((leaf) => covers(edge.from, leaf))) continue;
    if (!entered.some((leaf) => covers(edge.to, leaf))) continue;
    const score = depth(edge.from) * 1000 + depth(edge.to);
    if (score > bestScore) {
      best = edge;
      bestScore = score;
    }
  }
  return best;
}
