import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { DocSession } from './doc-session.ts';
import { type DocBlock, extractBlocks, type Step } from './extract-blocks.ts';
import { firstDifference, matchOutput, normalizeOutput } from './match-output.ts';

export interface RunDocOptions {
  root: string;
  /** The Markdown file, relative to `root`. */
  file: string;
  redisUrl: string;
  prefix: string;
  /** Longest wait for one command (a server's start, `chat`) on a loaded machine. */
  commandTimeoutMs?: number;
}

export interface DocReport {
  /** Each failure: where, the command, why, and what the doc shows against what it printed. */
  failures: string[];
  commands: number;
  skippedBlocks: number;
  seconds: number;
}

/**
 * Runs every example of one Markdown file, in order, in a `DocSession` (docs/writing-docs.md):
 * each command must exit 0 (or with what a following `$ echo $?` shows), each `curl` must get a
 * 2xx or the status the doc shows, and each output the doc shows must match what the command
 * printed (`matchOutput`). A block marked `skip` is not run; its reason is its record.
 */
/** A `curl` that sends nothing and asks with GET: running it again changes nothing. */
function onlyReads(command: string): boolean {
  return (
    /^curl\s/.test(command.trim()) &&
    !/\s(-d|--data\S*|-F|--form|-T|--upload-file|--json)\s/.test(` ${command} `) &&
    !/\s(-X|--request)\s*(?!GET\b)\S/.test(` ${command} `)
  );
}

export async function runDoc(options: RunDocOptions): Promise<DocReport> {
  const started = Date.now();
  const timeoutMs = options.commandTimeoutMs ?? 120_000;
  const markdown = readFileSync(join(options.root, options.file), 'utf8');
  const { blocks, problems } = extractBlocks(markdown, options.file);
  // A `session NAME` marker moves the blocks from there on to a terminal of that name; the
  // terminals of a file run at the same time, each its blocks in order.
  const sessions = new Map<string, DocBlock[]>();
  let current = 'main';
  for (const block of blocks) {
    const named = block.directives.find((d) => d.kind === 'session');
    if (named?.kind === 'session') current = named.name;
    sessions.set(current, [...(sessions.get(current) ?? []), block]);
  }
  const reports = await Promise.all(
    [...sessions].map(([name, own]) =>
      runSession(own, { ...options, prefix: `${options.prefix}${name}:` }, timeoutMs),
    ),
  );
  const failures = reports
    .flatMap((report) => report.failures)
    .sort((a, b) => a.line - b.line)
    .map((failure) => failure.text);
  return {
    failures: [...problems, ...failures],
    commands: reports.reduce((sum, report) => sum + report.commands, 0),
    skippedBlocks: blocks.filter((block) => block.directives.some((d) => d.kind === 'skip')).length,
    seconds: (Date.now() - started) / 1000,
  };
}

interface Failure {
  line: number;
  text: string;
}

async function runSession(
  blocks: DocBlock[],
  options: RunDocOptions,
  timeoutMs: number,
): Promise<{ failures: Failure[]; commands: number }> {
  const failures: Failure[] = [];
  let commands = 0;
  const session = await DocSession.open(options);
  let line = 0;
  try {
    for (const block of blocks) {
      line = block.line;
      if (block.directives.some((d) => d.kind === 'skip')) continue;
      const file = block.directives.find((d) => d.kind === 'file');
      if (file?.kind === 'file') {
        session.writeFile(file.path, block.body);
        continue;
      }
      for (const directive of block.directives) {
        if (directive.kind === 'env')
          await session.run(await session.rewrite(`export ${directive.assignments.join(' ')}`), {
            timeoutMs,
          });
        if (directive.kind === 'unset')
          await session.run(`unset ${directive.names.join(' ')}`, { timeoutMs });
      }
      for (const directive of block.directives)
        if (directive.kind === 'dev' || directive.kind === 'start')
          await session.ensureServer(directive.kind, timeoutMs);
      for (const step of block.steps) {
        commands++;
        line = step.line;
        const failure = await runStep(session, block, step, timeoutMs);
        if (failure) failures.push({ line, text: failure });
      }
    }
  } catch (error) {
    failures.push({
      line,
      text: `${options.file}: the session stopped: ${(error as Error).message}`,
    });
  } finally {
    await session.close();
    await deleteKeys(options.redisUrl, options.prefix);
  }
  return { failures, commands };
}

async function runStep(
  session: DocSession,
  block: DocBlock,
  step: Step,
  timeoutMs: number,
): Promise<string | undefined> {
  const where = `${block.file}:${step.line}`;
  const shown = `$ ${step.command}`;
  // `$ cat survey.csv` shows the file a later command reads: the doc makes it, as its reader does.
  const cat = /^cat ([\w./-]+)$/.exec(step.command.trim());
  if (cat && step.expected.trim() !== '' && !session.exists(cat[1]!))
    session.writeFile(cat[1]!, normalizeOutput(step.expected));
  const background =
    block.directives.some((d) => d.kind === 'background') || /&\s*$/.test(step.command);
  let command = await session.prepare(step.command);
  if (block.directives.some((d) => d.kind === 'background'))
    command = `( ${command.replace(/&\s*$/, '')} ) > "$RF_DOC_TMP/background-${step.line}.log" 2>&1 & disown`;
  const expected = await session.rewrite(step.expected, { output: true });
  const unordered = block.directives.some((d) => d.kind === 'unordered');
  let run: Awaited<ReturnType<DocSession['run']>>;
  try {
    run = await session.run(command, {
      timeoutMs,
      lateMs: background ? 60_000 : 10_000,
      settled: (output) =>
        matchOutput(expected, session.normalizeRedis(output), session.bindings, { unordered }).ok,
    });
    run = { ...run, output: session.normalizeRedis(run.output) };
  } catch (error) {
    // The session cannot go on after a command that never ended.
    throw new Error(`${where}: ${shown}\n  ${(error as Error).message}`);
  }
  let match = matchOutput(expected, run.output, session.bindings, { unordered });
  if (!match.ok && block.directives.some((d) => d.kind === 'eventually') && onlyReads(command)) {
    const until = Date.now() + 10_000;
    while (!match.ok && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      run = await session.run(command, { timeoutMs });
      run = { ...run, output: session.normalizeRedis(run.output) };
      match = matchOutput(expected, run.output, session.bindings, { unordered });
    }
  }
  const problems: string[] = [];
  if (run.status !== 0 && !step.statusShownNext) problems.push(`exit status ${run.status}`);
  if (match.ok) for (const [doc, real] of match.bound) session.bindings.set(doc, real);
  else problems.push(`output differs, ${firstDifference(expected, run.output)}`);
  const shownStatuses = [
    ...[...expected.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map((m) => Number(m[1])),
    ...[...expected.matchAll(/"status":\s*(\d{3})/g)].map((m) => Number(m[1])),
  ];
  for (const status of run.httpStatuses)
    if ((status < 200 || status > 299) && !shownStatuses.includes(status))
      problems.push(`curl got HTTP ${status} (the doc shows no such status)`);
  if (background && problems.length === 0) {
    const port = serverPort(command);
    if (port !== undefined)
      await session.waitForPort(
        port === 'default' ? await session.port(3000) : port,
        timeoutMs,
        block.directives.some((d) => d.kind === 'background')
          ? `background-${step.line}.log`
          : undefined,
      );
  }
  if (problems.length === 0) return undefined;
  return [
    `${where}: ${shown}`,
    ...problems.map((p) => `  ${p}`),
    ...(expected.trim() === '' ? [] : ['--- the doc shows:', normalizeOutput(expected)]),
    '--- it printed:',
    normalizeOutput(run.output) || '(nothing)',
  ].join('\n');
}

/** Removes what the session's commands left in the test Redis under its prefix. */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * The port a `replyflow` server started in the background listens on: its `--port`, else the
 * session's PORT (`'default'`); none for another command or `--port 0`.
 */
function serverPort(command: string): number | 'default' | undefined {
  if (!/\breplyflow(?:\.js)? (?:emulator|start|dev|web)\b/.test(command)) return undefined;
  const port = /--port[ =](\d+)/.exec(command)?.[1] ?? /\bPORT=(\d+)/.exec(command)?.[1];
  if (port === '0') return undefined;
  return port === undefined ? 'default' : Number(port);
}
