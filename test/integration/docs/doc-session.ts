import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { freePort } from '../../support/free-port.ts';
import { applyBindings } from './match-output.ts';

export interface SessionOptions {
  /** The repository, mirrored in the session's folder. */
  root: string;
  /** The test Redis: `redis://127.0.0.1:6379` in a doc means this one. */
  redisUrl: string;
  /** REPLYFLOW_REDIS_PREFIX of every command of the session. */
  prefix: string;
}

export interface CommandRun {
  /** stdout and stderr as a terminal shows them, interleaved (late background output too). */
  output: string;
  status: number;
  /** The HTTP status of each `curl` the command ran and that printed its own output. */
  httpStatuses: number[];
}

/** The session's markers in the output stream, which it takes out. */
const donePattern = /<<rf-doc DONE (\d+) (\d+)>>\n?/;
const httpMarker = /<<rf-doc HTTP (\d+) (\d{3})>>/g;

/**
 * One terminal for one doc file: a bash process whose state (exports, `cd`, background jobs)
 * carries from one command to the next, in a folder that mirrors the repository (`bots/` and
 * `transcripts/` copied, so that a doc may add files there; everything else linked). `replyflow`
 * and `npx replyflow` are `node bin/replyflow.js`; the ports a doc names (3000, 4010…) are free
 * ports of this session, the same one each time; `redis://127.0.0.1:6379` is the test Redis
 * under a key prefix of the session's own. stdout and stderr go to one stream, as on a
 * terminal: a command's output is what came between its start and the end of the previous one.
 */
export class DocSession {
  readonly dir: string;
  readonly bindings = new Map<string, string>();
  readonly #root: string;
  readonly #base: string;
  readonly #logs: string;
  readonly #redisUrl: string;
  readonly #ports = new Map<number, number>();
  readonly #bash: ChildProcess;
  readonly #decoder = new StringDecoder('utf8');
  #raw = '';
  #count = 0;
  #exited = false;
  readonly #servers = new Set<string>();
  #listeners: (() => void)[] = [];

  private constructor(options: SessionOptions, base: string, port3000: number, port4010: number) {
    this.#root = options.root;
    this.#base = base;
    this.#redisUrl = options.redisUrl;
    this.#ports.set(3000, port3000);
    this.#ports.set(4010, port4010);
    this.dir = join(base, 'work');
    this.#logs = join(base, 'logs');
    const shim = join(base, 'shim');
    mkdirSync(this.dir);
    mkdirSync(this.#logs);
    mkdirSync(shim);
    for (const entry of readdirSync(options.root)) {
      if (entry === '.git') continue;
      if (entry === 'bots' || entry === 'transcripts')
        cpSync(join(options.root, entry), join(this.dir, entry), { recursive: true });
      else symlinkSync(join(options.root, entry), join(this.dir, entry));
    }
    writeFileSync(
      join(shim, 'replyflow'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(options.root, 'bin/replyflow.js')}" "$@"\n`,
    );
    chmodSync(join(shim, 'replyflow'), 0o755);
    this.#bash = spawn('bash', ['--noprofile', '--norc'], {
      cwd: this.dir,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        PATH: `${shim}:${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: process.env.HOME ?? base,
        LANG: 'C.UTF-8',
        LC_ALL: 'C.UTF-8',
        TERM: 'dumb',
        NO_COLOR: '1',
        TZ: 'UTC',
        PORT: String(port3000),
        REPLYFLOW_REDIS_PREFIX: options.prefix,
        RF_DOC_TMP: this.#logs,
      },
    });
    const take = (chunk: Buffer) => {
      this.#raw += this.#decoder.write(chunk);
      for (const listener of this.#listeners) listener();
    };
    this.#bash.stdout!.on('data', take);
    this.#bash.stderr!.on('data', take);
    this.#bash.on('exit', () => {
      this.#exited = true;
      for (const listener of this.#listeners) listener();
    });
    this.#bash.stdin!.write(
      [
        'exec 2>&1',
        '__rf_s=0',
        '__rf_ret() { return "$1"; }',
        // Each curl also prints its HTTP status, between markers the session takes out. A curl
        // with its own -w prints its own (the last -w wins), and the doc shows it.
        `curl() { command curl -w "<<rf-doc HTTP \${__RF_CMD:-0} %{http_code}>>" "$@"; }`,
        '',
      ].join('\n'),
    );
  }

  static async open(options: SessionOptions): Promise<DocSession> {
    const base = mkdtempSync(join(tmpdir(), 'doc-test-'));
    return new DocSession(options, base, await freePort(), await freePort());
  }

  /** The port this session uses for a port a doc names. */
  async port(docPort: number): Promise<number> {
    let real = this.#ports.get(docPort);
    if (real === undefined) {
      real = await freePort();
      this.#ports.set(docPort, real);
    }
    return real;
  }

  /**
   * A doc's text with this session's ports, Redis and bound ids. A command's
   * `redis://127.0.0.1:6379` becomes the test Redis (after the ports are mapped: its own port,
   * a free one when the tests started a throwaway Redis, is no doc's port); an output's stays as
   * the doc shows it, and `normalizeOutput` writes the test Redis back that way.
   */
  async rewrite(text: string, options: { output?: boolean } = {}): Promise<string> {
    const redisMark = '\u0000redis\u0000';
    let result = text.replace(/\bnpx replyflow\b/g, 'replyflow');
    if (!options.output)
      result = result.replace(/redis:\/\/(?:127\.0\.0\.1|localhost):6379\/?/g, redisMark);
    const ports = new Set<number>();
    const portPatterns = [
      /(?<=(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]):)(\d{2,5})\b/g,
      /(?<=--port[ =])(\d{2,5})\b/g,
      /(?<=\bPORT=)(\d{2,5})\b/g,
    ];
    for (const pattern of portPatterns)
      for (const match of result.matchAll(pattern)) ports.add(Number(match[1]));
    for (const docPort of ports) {
      if (docPort === 6379 || docPort === 0) continue;
      const real = await this.port(docPort);
      for (const pattern of portPatterns)
        result = result.replace(pattern, (found) =>
          Number(found) === docPort ? String(real) : found,
        );
    }
    // "port 3000 is in use": a port a doc names in a message, once the session has mapped it.
    result = result.replace(/\bport (\d{2,5})\b/g, (found, docPort: string) => {
      const real = this.#ports.get(Number(docPort));
      return real === undefined ? found : `port ${real}`;
    });
    return applyBindings(result.replaceAll(redisMark, this.#redisUrl), this.bindings);
  }

  /** What a command printed, with the test Redis written as the docs name it. */
  normalizeRedis(output: string): string {
    const url = this.#redisUrl.replace(/\/$/, '');
    return output.replaceAll(url, 'redis://127.0.0.1:6379');
  }

  /** A command of the doc as this session runs it (`rewrite`, and the emulator's default port). */
  async prepare(command: string): Promise<string> {
    let result = await this.rewrite(command);
    // The emulator's default port is 4010 (it reads no PORT): give it this session's.
    if (/\breplyflow(?:\.js)? emulator\b/.test(result) && !/--port\b|--help\b/.test(result))
      result = result.replace(
        /(\breplyflow(?:\.js)? emulator\b)/,
        `$1 --port ${await this.port(4010)}`,
      );
    return result;
  }

  /** Writes `text` to `path` in the session's folder (not through a link into the repository). */
  writeFile(path: string, text: string): void {
    const target = resolve(this.dir, path);
    mkdirSync(dirname(target), { recursive: true });
    const real = realpathSync(dirname(target));
    if (relative(realpathSync(this.dir), real).startsWith('..'))
      throw new Error(`${path} is outside the session's own folders (bots/, transcripts/, ./)`);
    writeFileSync(target, text.endsWith('\n') ? text : `${text}\n`);
  }

  exists(path: string): boolean {
    try {
      readFileSync(resolve(this.dir, path));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Runs a prepared command in the session and waits for it (not for what it left in the
   * background). `settled`, when given, is asked again as late output arrives, for up to
   * `lateMs`: a background job's lines (a server's banner, "stopped" after a kill) may come
   * after the command itself returned, as on a terminal.
   */
  async run(
    command: string,
    options: { timeoutMs: number; lateMs?: number; settled?: (output: string) => boolean },
  ): Promise<CommandRun> {
    if (this.#exited) throw new Error('the session has ended');
    const n = ++this.#count;
    const file = join(this.#logs, `command-${n}.sh`);
    writeFileSync(file, `${command}\n`);
    const start = this.#raw.length;
    this.#bash.stdin!.write(
      `__RF_CMD=${n}; __rf_ret $__rf_s; . '${file}' < /dev/null; __rf_s=$?; printf '<<rf-doc DONE ${n} %d>>\\n' "$__rf_s"\n`,
    );
    const done = await this.#waitFor(() => {
      const at = this.#raw.indexOf(`<<rf-doc DONE ${n} `, start);
      return at >= 0 && donePattern.exec(this.#raw.slice(at)) ? at : undefined;
    }, options.timeoutMs);
    if (done === undefined)
      throw new Error(
        `no end after ${options.timeoutMs / 1000} s; output so far:\n${clean(this.#raw.slice(start), n).output}`,
      );
    const sentinel = donePattern.exec(this.#raw.slice(done))!;
    const status = Number(sentinel[2]);
    const after = done + sentinel[0].length;
    const window = () => this.#raw.slice(start, done) + this.#raw.slice(after);
    if (options.settled && !options.settled(clean(window(), n).output))
      await this.#waitFor(
        () => (options.settled!(clean(window(), n).output) ? true : undefined),
        options.lateMs ?? 0,
      );
    const { output, httpStatuses } = clean(window(), n);
    // Late output belongs to this command: the next one starts after it.
    this.#raw = this.#raw.slice(0, done) + this.#raw.slice(after);
    return { output, status, httpStatuses };
  }

  /**
   * Starts, once, in the background and in the session's environment so far: `replyflow dev`
   * on the session's port 3000 (`dev`), or the emulator on its port 4010 with the key pair of
   * REPLYFLOW_API_KEY_ID, REPLYFLOW_API_KEY_SECRET and REPLYFLOW_LOCATION, and `replyflow start`
   * on port 3000 (`start`). Their output goes to `dev.log`, `emulator.log` and `start.log`;
   * they are not jobs of the shell (`disown`), so the doc's `kill %1` means the job it started.
   */
  async ensureServer(kind: 'dev' | 'start', timeoutMs: number): Promise<void> {
    if (this.#servers.has(kind)) return;
    this.#servers.add(kind);
    if (kind === 'start') {
      await this.run(
        await this.prepare(
          'replyflow emulator --key-pair "$REPLYFLOW_API_KEY_ID:$REPLYFLOW_API_KEY_SECRET:$REPLYFLOW_LOCATION" --log-level warn > "$RF_DOC_TMP/emulator.log" 2>&1 & disown',
        ),
        { timeoutMs: 10_000 },
      );
      await this.waitForPort(await this.port(4010), timeoutMs, 'emulator.log');
    }
    await this.run(`replyflow ${kind} > "$RF_DOC_TMP/${kind}.log" 2>&1 & disown`, {
      timeoutMs: 10_000,
    });
    await this.waitForPort(await this.port(3000), timeoutMs, `${kind}.log`);
  }

  /** Waits until something accepts connections on the port. */
  async waitForPort(port: number, timeoutMs: number, log?: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await accepts(port)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    const tail = log ? `\n${this.log(log).slice(-3000)}` : '';
    throw new Error(`nothing listens on port ${port} after ${timeoutMs / 1000} s${tail}`);
  }

  log(name: string): string {
    try {
      return readFileSync(join(this.#logs, name), 'utf8');
    } catch {
      return '(no log)';
    }
  }

  /** Ends the session and everything it started (its process group), and removes its folder. */
  async close(): Promise<void> {
    const pid = this.#bash.pid;
    if (pid !== undefined && !this.#exited) {
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-pid, name);
        } catch {
          // gone already
        }
      };
      // The servers of the group get the SIGTERM too: a moment to stop, then whatever is left goes.
      signal('SIGTERM');
      await this.#waitFor(() => (this.#exited ? true : undefined), 10_000);
      await new Promise((r) => setTimeout(r, 1000));
      signal('SIGKILL');
    }
    rmSync(this.#base, { recursive: true, force: true });
  }

  #waitFor<T>(check: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      const first = check();
      if (first !== undefined) return resolve(first);
      const listener = () => {
        const value = check();
        if (value !== undefined || this.#exited) finish(value);
      };
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      const finish = (value: T | undefined) => {
        clearTimeout(timer);
        this.#listeners = this.#listeners.filter((l) => l !== listener);
        resolve(value);
      };
      this.#listeners.push(listener);
    });
  }
}

/** A command's window without the session's markers; the HTTP statuses of its own curls. */
function clean(text: string, n: number): { output: string; httpStatuses: number[] } {
  const httpStatuses: number[] = [];
  const output = text
    .replace(httpMarker, (_, cmd: string, code: string) => {
      if (Number(cmd) === n) httpStatuses.push(Number(code));
      return '';
    })
    .replace(/<<rf-doc DONE \d+ \d+>>\n?/g, '');
  return { output, httpStatuses };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
