import { type ChildProcess, fork } from 'node:child_process';

/** A message a bench child sends over IPC: an answer to a request, or an unprompted event. */
interface Envelope {
  replyTo?: number;
  type?: string;
  [field: string]: unknown;
}

export interface BenchChild<Ready> {
  process: ChildProcess;
  /** What the child sent in its `ready` message. */
  ready: Ready;
  /** Sends a request and resolves with the child's answer to it. */
  ask<T = Envelope>(type: string, fields?: Record<string, unknown>): Promise<T>;
  /** Asks the child to stop (`close`), and waits for it to exit. */
  close(): Promise<void>;
}

/**
 * Starts a TypeScript file in its own Node process (through tsx) with an IPC channel, and waits
 * for its `{ type: 'ready' }` message. `execArgv` adds Node flags, e.g. `--cpu-prof`.
 */
export async function startChild<Ready>(
  file: URL,
  args: string[],
  options: { env?: Record<string, string>; execArgv?: string[]; readyTimeoutMs?: number } = {},
): Promise<BenchChild<Ready>> {
  const child = fork(file, args, {
    execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 1;
  const pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (e: Error) => void }
  >();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let readyResolve: (value: Ready) => void = () => {};
  let readyReject: (error: Error) => void = () => {};
  const ready = new Promise<Ready>((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  child.on('message', (raw) => {
    const message = raw as Envelope;
    if (message.type === 'ready') readyResolve(message as unknown as Ready);
    else if (message.replyTo !== undefined) {
      const waiter = pending.get(message.replyTo);
      pending.delete(message.replyTo);
      if (message.type === 'error') waiter?.reject(new Error(String(message.message)));
      else waiter?.resolve(message);
    }
  });
  void exited.then((code) => {
    const error = new Error(`${file.pathname} exited with code ${code}`);
    readyReject(error);
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  });
  const timeout = setTimeout(
    () => readyReject(new Error(`${file.pathname} was not ready in time`)),
    options.readyTimeoutMs ?? 30_000,
  );
  try {
    const readyMessage = await ready;
    return {
      process: child,
      ready: readyMessage,
      ask<T>(type: string, fields: Record<string, unknown> = {}) {
        const id = nextId++;
        return new Promise<T>((resolve, reject) => {
          pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
          child.send({ ...fields, type, id });
        });
      },
      async close() {
        if (child.exitCode !== null) return;
        child.send({ type: 'close', id: 0 });
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timeout);
  }
}

/**
 * The child's side: answers the parent's requests with `handlers[type]`, and exits after the
 * `close` handler (when given) has run.
 */
export function serveParent(
  handlers: Record<string, (message: Envelope) => unknown>,
  onClose: () => Promise<void>,
): void {
  process.on('message', async (raw) => {
    const message = raw as Envelope & { id: number; type: string };
    if (message.type === 'close') {
      try {
        await onClose();
      } finally {
        process.exit(0);
      }
    }
    try {
      const handler = handlers[message.type];
      if (!handler) throw new Error(`unknown request '${message.type}'`);
      const answer = (await handler(message)) ?? {};
      process.send?.({ ...(answer as object), replyTo: message.id });
    } catch (error) {
      process.send?.({ type: 'error', message: (error as Error).message, replyTo: message.id });
    }
  });
  // The parent died: do not linger.
  process.on('disconnect', () => {
    void onClose().finally(() => process.exit(0));
  });
}
