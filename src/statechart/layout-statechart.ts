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
  /**
   * A timer that only runs actions and stays in its state (`after: { reminder: { guard,
   * actions } }`): drawn as a loop on the state, `from` and `to` the same. No step of a run
   * goes along it (the funnel places no count on it).
   */
  stays?: true;
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
 * guards and delays) never leaves the server: only their names, or the short source text of an
 * inline guard, are in the labels. A timer that runs actions and stays (a reminder) is drawn as
 * a loop on its state (`stays`); other targetless transitions (an answer re-asked) are left out.
 *
 * @example
 * const chart = await layoutStatechart(bot.machine);
 * chart.edges.find((edge) => edge.stays)?.label; // 'after reminder\n[!context.reminded]'
 */
export async function layoutStatechart(machine: AnyStateMachine): Promise<Statechart> {
  const edges: ElkExtendedEdge[] = [];
  const labels = new Map<string, Omit<ChartEdge, 'id' | 'points' | 'labelBox'>>();
  const delays = (machine.implementations?.delays ?? {}) as Record<string, unknown>;
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
  const edge = (from: string, to: string, label: string, stays?: true) => {
    const id = `e${edges.length}`;
    labels.set(id, { from, to, label, ...(stays ? { stays } : {}) });
    edges.push({
      id,
      sources: [from],
      targets: [to],
      labels: [labelBox(label)],
    });
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
        const label = transitionLabel(transition.eventType, transition.guard, delays);
        const targets = transition.target ?? [];
        for (const target of targets) edge(pathOf(node), pathOf(target), label);
        if (targets.length === 0 && isTimer(transition.eventType)) {
          edge(pathOf(node), pathOf(node), label, true);
        }
      }
    }
    for (const transition of node.always ?? []) {
      for (const target of transition.target ?? []) {
        edge(pathOf(node), pathOf(target), transitionLabel('always', transition.guard, delays));
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

/** XState names a delayed transition's event `xstate.after.<delay>.<state id>`. */
const isTimer = (eventType: string) => eventType.startsWith('xstate.after.');

/** `sms.reply\n[saidYes]`, `after 24h`, `after expiry (3d)`, `always\n[!context.reminded]`. */
function transitionLabel(eventType: string, guard: unknown, delays: Record<string, unknown>) {
  let label = eventType;
  if (isTimer(eventType)) {
    const delay = eventType.slice('xstate.after.'.length).split('.')[0]!;
    label = `after ${delayLabel(delay, delays[delay])}`;
  }
  if (!guard) return label;
  // The guard goes on lines of its own: the chart stays narrow.
  return `${label}\n${wrap(`[${guardLabel(guard, eventType)}]`).join('\n')}`;
}

/**
 * `24h` for a delay in ms or written as a duration (`after: { '24h': … }`), `expiry (3d)` for a
 * named delay of `setup({ delays })` with a fixed value, the name alone for one computed from
 * the context (`reminder`).
 */
function delayLabel(delay: string, value: unknown): string {
  if (/^\d+$/.test(delay)) return humanMs(Number(delay));
  if (/^\d/.test(delay)) return delay;
  return typeof value === 'number' && Number.isFinite(value)
    ? `${delay} (${humanMs(value)})`
    : delay;
}

/**
 * A guard as a label: its name in `setup({ guards })` (`canRetry`, or `{ type }`), the name of
 * the function given (`saidYes`, `saidCancel`), XState's `and`/`or`/`not`/`stateIn` with the
 * guards they combine, and for an inline arrow (whose name, inferred from `guard:`, says
 * nothing) its body's source text, shortened: `!context.reminded`.
 */
export function guardLabel(guard: unknown, eventType?: string): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null) {
    const type = (guard as { type?: unknown }).type;
    return typeof type === 'string' ? type : 'inline guard';
  }
  if (typeof guard !== 'function') return 'inline guard';
  const combined = guard as { check?: unknown; guards?: unknown[]; stateValue?: unknown };
  if (typeof combined.check === 'function' && Array.isArray(combined.guards)) {
    return `${guard.name}(${combined.guards.map((inner) => guardLabel(inner, eventType)).join(', ')})`;
  }
  if (typeof combined.check === 'function' && combined.stateValue !== undefined) {
    const state = combined.stateValue;
    return `in ${typeof state === 'string' ? state : JSON.stringify(state)}`;
  }
  if (guard.name && guard.name !== 'guard') return guard.name;
  let source = shortSource(guard.toString());
  // `event.type === 'sms.reply' && …` on an `sms.reply` transition narrows a type: always true.
  for (const quote of ['"', "'"]) {
    const test = `event.type === ${quote}${eventType}${quote} && `;
    if (eventType && source.startsWith(test)) source = source.slice(test.length);
  }
  return source || 'inline guard';
}

/**
 * The body of a function's source, on one line: `({ context }) => !context.reminded` gives
 * `!context.reminded`, a block `{ return x; }` gives `x`.
 */
export function shortSource(source: string): string {
  let text = spaced(source);
  const arrow = arrowBody(text);
  if (arrow !== undefined) text = arrow;
  else if (/^(async )?function\b/.test(text) && text.includes('{')) {
    text = text.slice(text.indexOf('{'));
  }
  if (text.startsWith('{') && text.endsWith('}')) {
    text = text.slice(1, -1).trim();
    const only = /^return (.*?);?$/.exec(text);
    if (only && !only[1]!.includes(';')) text = only[1]!;
  }
  text = text.replace(/;$/, '').trim();
  if (text.startsWith('(') && text.endsWith(')') && balanced(text.slice(1, -1))) {
    text = text.slice(1, -1).trim();
  }
  return text;
}

const operators = ['===', '!==', '&&', '||', '??', '<=', '>=', '==', '!=', '=>', '<', '>'];

/**
 * The source on one line, with one space around comparisons and logical operators and after
 * commas, outside strings: a loader may have printed it without spaces
 * (`a.b!==void 0&&c` gives `a.b !== undefined && c`).
 */
function spaced(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; ) {
    const char = source[i]!;
    if (char === '"' || char === "'" || char === '`') {
      let end = i + 1;
      while (end < source.length && source[end] !== char) end += source[end] === '\\' ? 2 : 1;
      out += source.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    const operator = operators.find((op) => source.startsWith(op, i));
    if (operator) {
      out += ` ${operator} `;
      i += operator.length;
    } else {
      out += char === ',' ? ', ' : char;
      i++;
    }
  }
  return out
    .replace(/\bvoid 0\b/g, 'undefined')
    .replace(/\s+/g, ' ')
    .replace(/([([{]) /g, '$1')
    .replace(/ ([)\]}])/g, '$1')
    .trim();
}

/** What follows `=>` in an arrow function's source, or undefined for another function. */
function arrowBody(text: string): string | undefined {
  let i = text.startsWith('async ') ? 6 : 0;
  if (text[i] === '(') {
    let depth = 0;
    for (; i < text.length; i++) {
      if ('([{'.includes(text[i]!)) depth++;
      else if (')]}'.includes(text[i]!) && --depth === 0) break;
    }
    i++;
  } else {
    const name = /^[\w$]+/.exec(text.slice(i));
    if (!name) return undefined;
    i += name[0].length;
  }
  const rest = text.slice(i).trimStart();
  return rest.startsWith('=>') ? rest.slice(2).trim() : undefined;
}

/** Whether every bracket in `text` closes in order (so `(a) && (b)` keeps its parentheses). */
function balanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char) && --depth < 0) return false;
  }
  return depth === 0;
}

const lineMax = 30;
const linesMax = 2;

/**
 * Splits a guard's label at spaces into at most `linesMax` lines of at most `lineMax`
 * characters (a longer word is cut); what does not fit ends with `…`.
 */
function wrap(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const joined = line ? `${line} ${word}` : word;
    if (joined.length <= lineMax) line = joined;
    else if (line && word.length <= lineMax) {
      lines.push(line);
      line = word;
    } else {
      lines.push(joined.slice(0, lineMax));
      line = joined.slice(lineMax);
    }
  }
  lines.push(line);
  if (lines.length <= linesMax) return lines;
  const last = lines[linesMax - 1]!.slice(0, lineMax - 2).trimEnd();
  return [...lines.slice(0, linesMax - 1), `${last}…]`];
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
