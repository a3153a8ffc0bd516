import elkModule, { type ELK, type ElkExtendedEdge, type ElkNode } from 'elkjs';
import type { AnyStateMachine } from 'xstate';

/** A state of the drawn statechart, in absolute page coordinates. */
export interface ChartNode {
  /** The state's path joined with dots (`asking`, `survey.comment`), as in a state value. */
  id: string;
  label: string;
  kind: 'atomic' | 'compound' | 'parallel' | 'final' | 'history' | 'initial';
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A transition: its route as a polyline, and where its label sits. */
export interface ChartEdge {
  id: string;
  from: string;
  to: string;
  label: string;
  points: Array<{ x: number; y: number }>;
  labelBox?: { x: number; y: number; width: number; height: number };
}

export interface Statechart {
  width: number;
  height: number;
  nodes: ChartNode[];
  edges: ChartEdge[];
}

type StateNode = AnyStateMachine['root'];

// elkjs is CommonJS (`module.exports = ELK`) while its typings declare an ES default export.
const Elk = ((elkModule as { default?: unknown }).default ?? elkModule) as new () => ELK;
const elk = new Elk();
const charWidth = 7;
const labelHeight = 14;

/**
 * Lays a bot's statechart out from its machine definition with ELK's layered algorithm, which
 * handles nested states and transitions that cross them. The layout runs here rather than in
 * the page so the page stays a plain file with no bundled library, and the machine (with its
 * guards and delays) never leaves the server. Targetless transitions (actions only) are left
 * out: they do not change the state.
 */
export async function layoutStatechart(machine: AnyStateMachine): Promise<Statechart> {
  const edges: ElkExtendedEdge[] = [];
  const labels = new Map<string, { from: string; to: string; label: string }>();
  const graph: ElkNode = {
    id: '(root)',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.spacing.nodeNode': '28',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36',
      'elk.spacing.edgeLabel': '4',
      'elk.edgeLabels.placement': 'CENTER',
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
    // A machine with no states of its own is drawn as one state, named after the machine.
    children:
      Object.keys(machine.root.states).length > 0
        ? childrenOf(machine.root)
        : [
            {
              id: '(machine)',
              labels: [{ text: machine.id }],
              layoutOptions: { 'replyflow.kind': machine.root.type },
              width: Math.max(72, machine.id.length * 8 + 28),
              height: 34,
            },
          ],
    edges,
  };
  for (const node of allStates(machine.root)) {
    const initial = initialChild(node);
    if (initial) {
      const id = `(initial)${pathOf(node)}`;
      edges.push({ id: `${id}->`, sources: [id], targets: [pathOf(initial)] });
      labels.set(`${id}->`, { from: id, to: pathOf(initial), label: '' });
    }
    for (const transitions of node.transitions.values()) {
      for (const transition of transitions) {
        for (const target of transition.target ?? []) {
          const id = `e${edges.length}`;
          const label = transitionLabel(transition.eventType, transition.guard);
          labels.set(id, { from: pathOf(node), to: pathOf(target), label });
          edges.push({
            id,
            sources: [pathOf(node)],
            targets: [pathOf(target)],
            labels: [labelBox(label)],
          });
        }
      }
    }
    for (const transition of node.always ?? []) {
      for (const target of transition.target ?? []) {
        const id = `e${edges.length}`;
        const label = transitionLabel('always', transition.guard);
        labels.set(id, { from: pathOf(node), to: pathOf(target), label });
        edges.push({
          id,
          sources: [pathOf(node)],
          targets: [pathOf(target)],
          labels: [labelBox(label)],
        });
      }
    }
  }
  const laid = await elk.layout(graph);
  const nodes: ChartNode[] = [];
  const origins = new Map<string, { x: number; y: number }>([['(root)', { x: 0, y: 0 }]]);
  const place = (parent: ElkNode, ox: number, oy: number) => {
    for (const child of parent.children ?? []) {
      const x = ox + (child.x ?? 0);
      const y = oy + (child.y ?? 0);
      origins.set(child.id, { x, y });
      nodes.push({
        id: child.id,
        label: (child.labels?.[0]?.text as string | undefined) ?? '',
        kind: kindOf(child),
        x,
        y,
        width: child.width ?? 0,
        height: child.height ?? 0,
      });
      place(child, x, y);
    }
  };
  place(laid, 0, 0);
  const chartEdges: ChartEdge[] = (laid.edges ?? []).map((edge: ElkExtendedEdge) => {
    const container = (edge as { container?: string }).container ?? '(root)';
    const o = origins.get(container) ?? { x: 0, y: 0 };
    const section = edge.sections?.[0];
    const points = section
      ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map((p) => ({
          x: p.x + o.x,
          y: p.y + o.y,
        }))
      : [];
    const box = edge.labels?.[0];
    const known = labels.get(edge.id)!;
    return {
      id: edge.id,
      ...known,
      points,
      ...(box && known.label
        ? {
            labelBox: {
              x: (box.x ?? 0) + o.x,
              y: (box.y ?? 0) + o.y,
              width: box.width ?? 0,
              height: box.height ?? 0,
            },
          }
        : {}),
    };
  });
  return { width: laid.width ?? 0, height: laid.height ?? 0, nodes, edges: chartEdges };
}

function childrenOf(node: StateNode): ElkNode[] {
  const children: ElkNode[] = [];
  const initial = initialChild(node);
  if (initial) children.push({ id: `(initial)${pathOf(node)}`, width: 12, height: 12 });
  for (const child of Object.values(node.states) as StateNode[]) {
    const label = child.key;
    const nested = childrenOf(child);
    children.push({
      id: pathOf(child),
      labels: [{ text: label }],
      layoutOptions: {
        'replyflow.kind': child.type,
        ...(nested.length > 0 ? { 'elk.padding': '[top=30,left=12,bottom=12,right=12]' } : {}),
      },
      ...(nested.length > 0
        ? { children: nested }
        : { width: Math.max(72, label.length * 8 + 28), height: 34 }),
    });
  }
  return children;
}

function kindOf(node: ElkNode): ChartNode['kind'] {
  if (node.id.startsWith('(initial)')) return 'initial';
  return (node.layoutOptions?.['replyflow.kind'] as ChartNode['kind'] | undefined) ?? 'atomic';
}

function* allStates(node: StateNode): Generator<StateNode> {
  yield node;
  for (const child of Object.values(node.states) as StateNode[]) yield* allStates(child);
}

function initialChild(node: StateNode): StateNode | undefined {
  if (node.type !== 'compound') return undefined;
  return node.initial.target[0] as StateNode | undefined;
}

/** `(machine)` for the root, else the state path as in a state value (`parent.child`). */
function pathOf(node: StateNode): string {
  return node.path.length === 0 ? '(machine)' : node.path.join('.');
}

/** `sms.reply [saidYes]`, `after 24h`, `always`. */
function transitionLabel(eventType: string, guard: unknown): string {
  let label = eventType;
  // XState names a delayed transition's event `xstate.after.<delay>.<state id>`.
  if (eventType.startsWith('xstate.after.')) {
    const delay = eventType.slice('xstate.after.'.length).split('.')[0]!;
    label = `after ${/^\d+$/.test(delay) ? humanMs(Number(delay)) : delay}`;
  }
  const name = guardName(guard);
  // The guard goes on a line of its own: the chart stays narrow enough for a phone.
  return name ? `${label}\n[${name}]` : label;
}

/** ELK places a label by its size; a label of several lines is as wide as its longest. */
function labelBox(text: string): { text: string; width: number; height: number } {
  const lines = text.split('\n');
  return {
    text,
    width: Math.max(...lines.map((line) => line.length)) * charWidth,
    height: lines.length * labelHeight,
  };
}

function guardName(guard: unknown): string | undefined {
  if (!guard) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && typeof (guard as { type?: unknown }).type === 'string') {
    return (guard as { type: string }).type;
  }
  if (typeof guard === 'function') return guard.name || 'guard';
  return 'guard';
}

function humanMs(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
