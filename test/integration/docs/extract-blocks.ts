/**
 * Finds the examples of a Markdown file that the doc test runs (docs/writing-docs.md): every
 * fenced block in `sh`, `bash`, `shell` or `console`, every other block with a `curl` command
 * line, and every block a `file` marker names. Each may carry a marker, an HTML comment on the
 * line before its fence (GitHub does not render it):
 *
 *     <!-- doc-test: skip: needs the real messaging service -->
 *     <!-- doc-test: dev -->
 *     <!-- doc-test: background -->
 *     <!-- doc-test: file bots/rsvp.ts -->
 *     <!-- doc-test: env REDIS_URL=redis://127.0.0.1:6379 REPLYFLOW_LOCATION=paris; dev -->
 *
 * A block that is neither runnable (a `console` block with no `$ ` command, say) nor marked
 * `skip` with a reason is a problem, reported with its file and line.
 */

export type Directive =
  | { kind: 'skip'; reason: string }
  /** Runs with a `replyflow dev` the test started on the session's port 3000. */
  | { kind: 'dev' }
  /**
   * Runs with a `replyflow start` the test started on port 3000, in the session's environment,
   * and the emulator it sends to on port 4010, with the environment's key pair and location.
   */
  | { kind: 'start' }
  /** Its commands run "in another terminal": in the background, output to a log file. */
  | { kind: 'background' }
  /** Not run: its text is written to this path of the session's folder, for later blocks. */
  | { kind: 'file'; path: string }
  /**
   * Exported in the session before the block, for the rest of the file: the environment the doc
   * says its commands run in ("where the server's environment is set") but does not show.
   */
  | { kind: 'env'; assignments: string[] }
  /** Unset in the session before the block, for the rest of the file. */
  | { kind: 'unset'; names: string[] }
  /** The lines of each output may come in any order (a list read with SCAN). */
  | { kind: 'unordered' }
  /**
   * What its reads show comes about a moment later (an SMS's status): a `curl` that only reads
   * is asked again until its output matches, for up to 10 s.
   */
  | { kind: 'eventually' }
  /**
   * This block and the next ones run in the terminal of this name (`main` before any): the
   * terminals of a file run at the same time, each with its own ports, Redis prefix and folder.
   */
  | { kind: 'session'; name: string };

export interface Step {
  /** The command as the doc writes it, continuation lines included (without the `$ `). */
  command: string;
  /** What the doc shows it printing ('' when nothing). */
  expected: string;
  /** 1-based line of the command in the Markdown file. */
  line: number;
  /** The next step is `echo $?`, which shows the status: this one's is not checked. */
  statusShownNext: boolean;
}

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  body: string;
  directives: Directive[];
  /** `console` blocks: one step per `$ ` command; `sh` blocks: the whole block, one step. */
  steps: Step[];
}

export interface Extracted {
  blocks: DocBlock[];
  /** Blocks neither runnable nor marked, and markers that do not parse: `file:line: why`. */
  problems: string[];
}

const shellLangs = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
const markerPattern = /^\s*<!--\s*doc-test:(.*?)-->\s*$/;
const fencePattern = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const curlLine = /^\s*(?:\$\s+)?(?:\S+=\S*\s+)*curl\s/m;

export function extractBlocks(markdown: string, file: string): Extracted {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: DocBlock[] = [];
  const problems: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = fencePattern.exec(lines[i]!);
    if (!open) {
      if (/^\s*<!--\s*doc-test/.test(lines[i]!) && !markerPattern.test(lines[i]!))
        problems.push(`${file}:${i + 1}: a doc-test marker must be one line: <!-- doc-test: … -->`);
      continue;
    }
    const [, indent, fence, lang] = open;
    let end = i + 1;
    while (end < lines.length && !isClosingFence(lines[end]!, fence!)) end++;
    const body = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line.trimStart()))
      .join('\n');
    const marker = markerBefore(lines, i);
    const parsed = marker === undefined ? { directives: [] } : parseMarker(marker);
    const where = `${file}:${i + 1}`;
    if ('problem' in parsed) problems.push(`${where}: ${parsed.problem}`);
    const directives = 'directives' in parsed ? parsed.directives : [];
    const inScope =
      shellLangs.has(lang!.toLowerCase()) ||
      curlLine.test(body) ||
      directives.some((d) => d.kind === 'file');
    if (inScope) {
      const block: DocBlock = { file, line: i + 1, lang: lang!, body, directives, steps: [] };
      const problem = classify(block);
      if (problem) problems.push(`${where}: ${problem}`);
      blocks.push(block);
    } else if (marker !== undefined) {
      problems.push(`${where}: a doc-test marker on a block the doc test does not take`);
    }
    i = end;
  }
  return { blocks, problems };
}

function isClosingFence(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(fence) && /^[`~]+$/.test(trimmed);
}

/** The marker on the line before the fence, or before one blank line. */
function markerBefore(lines: string[], fenceIndex: number): string | undefined {
  for (let j = fenceIndex - 1; j >= Math.max(0, fenceIndex - 2); j--) {
    const match = markerPattern.exec(lines[j]!);
    if (match) return match[1]!.trim();
    if (lines[j]!.trim() !== '') return undefined;
  }
  return undefined;
}

function parseMarker(text: string): { directives: Directive[] } | { problem: string } {
  const directives: Directive[] = [];
  // `skip:` takes the rest of the comment as its reason, semicolons included.
  const skipAt = text.search(/(?:^|;)\s*skip\b/);
  const head = skipAt < 0 ? text : text.slice(0, skipAt);
  if (skipAt >= 0) {
    const reason = /skip\s*:(.*)$/.exec(text.slice(skipAt))?.[1]?.trim() ?? '';
    if (reason.length < 8)
      return { problem: "'skip' needs a reason: <!-- doc-test: skip: why it cannot run -->" };
    directives.push({ kind: 'skip', reason });
  }
  for (const part of head
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (part === 'dev' || part === 'start' || part === 'unordered' || part === 'eventually')
      directives.push({ kind: part });
    else if (part === 'background') directives.push({ kind: 'background' });
    else if (/^file\s+\S+$/.test(part))
      directives.push({ kind: 'file', path: part.slice(5).trim() });
    else if (/^env(\s+[A-Z_][A-Z0-9_]*=\S*)+$/.test(part))
      directives.push({ kind: 'env', assignments: part.split(/\s+/).slice(1) });
    else if (/^session\s+[a-z][a-z0-9-]*$/.test(part))
      directives.push({ kind: 'session', name: part.slice(7).trim() });
    else if (/^unset(\s+[A-Z_][A-Z0-9_]*)+$/.test(part))
      directives.push({ kind: 'unset', names: part.split(/\s+/).slice(1) });
    else
      return {
        problem: `unknown doc-test directive '${part}' (skip: REASON, dev, start, background, file PATH, env NAME=VALUE…, unset NAME…, unordered, eventually, session NAME)`,
      };
  }
  return { directives };
}

/** Fills `block.steps`; returns why the block cannot run when it is not marked skip. */
function classify(block: DocBlock): string | undefined {
  const skipped = block.directives.some((d) => d.kind === 'skip');
  if (block.directives.some((d) => d.kind === 'file')) return undefined;
  if (block.lang.toLowerCase() === 'console') {
    block.steps = consoleSteps(block.body, block.line);
    if (skipped) return undefined;
    if (block.steps.length === 0)
      return "a console block with no '$ ' command: show the command, or mark it <!-- doc-test: skip: REASON --> (a log excerpt, say)";
    if (!block.body.trimStart().startsWith('$ '))
      return "output before the block's first '$ ' command: show the command that printed it, or mark the block skip with a reason";
  } else if (block.body.trim() !== '') {
    block.steps = [
      { command: block.body, expected: '', line: block.line + 1, statusShownNext: false },
    ];
  }
  return undefined;
}

/** `$ command` lines (with `\` continuations) and the lines each shows after it. */
export function consoleSteps(body: string, firstLine: number): Step[] {
  const lines = body.split('\n');
  const steps: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('$ ')) continue;
    const line = firstLine + 1 + i;
    let command = lines[i]!.slice(2);
    while (command.endsWith('\\') && i + 1 < lines.length) command += `\n${lines[++i]}`;
    const output: string[] = [];
    while (i + 1 < lines.length && !lines[i + 1]!.startsWith('$ ')) output.push(lines[++i]!);
    steps.push({ command, expected: output.join('\n'), line, statusShownNext: false });
  }
  for (let s = 0; s + 1 < steps.length; s++)
    steps[s]!.statusShownNext = /^echo \$\?\s*$/.test(steps[s + 1]!.command);
  return steps;
}
