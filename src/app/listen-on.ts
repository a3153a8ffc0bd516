import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../errors.ts';

/**
 * Listens on `host:port` and resolves to the URL to reach it (a wildcard host is reached on
 * 127.0.0.1). A port in use, a port needing privileges, or an address this machine does not
 * have is a one-line `ConfigError` saying what to change, not a stack trace.
 */
export async function listenOn(server: Server, port: number, host: string): Promise<string> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject).listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new ConfigError(`port ${port} is in use: set PORT or --port`, { cause: error });
    }
    if (code === 'EACCES') {
      throw new ConfigError(`port ${port} needs privileges: set PORT or --port above 1023`, {
        cause: error,
      });
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new ConfigError(
        `cannot listen on ${host}: it is not an address of this machine (--host)`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : address.address;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${address.port}`;
}

/**
 * A port free on `host` right now. `replyflow chat` needs its port before listening: the
 * webhook URL it registers with its emulator names it.
 */
export async function freePortOn(host: string): Promise<number> {
  const probe = createServer();
  const url = await listenOn(probe, 0, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return Number(new URL(url).port);
}
