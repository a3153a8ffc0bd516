import { connect, createServer, type Server, type Socket } from 'node:net';

export interface FreezableProxy {
  /** `http://127.0.0.1:PORT`: point a client here instead of at the target. */
  url: string;
  /**
   * The service hangs as a stopped process does (SIGSTOP): connections are accepted and what
   * clients write is kept, but nothing reaches the service and nothing comes back.
   */
  freeze(): void;
  /**
   * The service runs again (SIGCONT): everything written meanwhile reaches it, in order, also
   * for clients that gave up and closed their connection (the service then processes their
   * requests all the same); answers flow again.
   */
  resume(): void;
  /**
   * Connections whose client wrote a request that the service has not answered yet (the
   * answer goes to a client that gave up as well): 0 once the resumed service has handled
   * every request it took.
   */
  unanswered(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy to `target` on loopback that can freeze the service behind it the way a stopped
 * process hangs: the kernel still takes connections and buffers their bytes, and a resumed
 * process reads and handles them, answering clients that are long gone.
 */
export async function startFreezableProxy(target: URL): Promise<FreezableProxy> {
  let frozen = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const waiting = new Set<Socket>();
  const whenRunning = (run: () => void) => (frozen ? held.push(run) : run());

  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => {
      waiting.add(client);
      whenRunning(() => upstream.write(chunk));
    });
    upstream.on('data', () => waiting.delete(client));
    upstream.on('close', () => waiting.delete(client));
    // A client that gives up closes; what it wrote still reaches the service once it runs.
    client.on('end', () => whenRunning(() => upstream.end()));
    client.on('close', () => whenRunning(() => upstream.end()));
    upstream.on('data', (chunk) => whenRunning(() => client.writable && client.write(chunk)));
    upstream.on('end', () => whenRunning(() => client.end()));
    client.on('error', () => {});
    upstream.on('error', () => client.destroy());
    const forget = (socket: Socket) => () => sockets.delete(socket);
    client.on('close', forget(client));
    upstream.on('close', forget(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    freeze() {
      frozen = true;
    },
    resume() {
      frozen = false;
      for (const run of held.splice(0)) run();
    },
    unanswered: () => waiting.size,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
