import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createEmulatorApp, type EmulatorDeps } from './create-emulator-app.ts';
import type { EmulatorKeyPair, EmulatorOptions } from './emulator-options.ts';
import { handleApiError, routeNotFound } from './handle-api-error.ts';
import { isLoopback } from './is-loopback.ts';
import { requireLocalHost } from './require-local-host.ts';

/** `replyflow emulator`'s key pair without `--key-pair` (`dev:dev`): no secret from anyone. */
function isWellKnown(pair: EmulatorKeyPair): boolean {
  return pair.id === 'dev' && pair.secret === 'dev';
}

export interface RunningEmulator {
  /** `http://127.0.0.1:PORT` (`host`, when a specific one). */
  url: string;
  /** `url + '/v1'`, the service's base URL. */
  baseUrl: string;
  port: number;
  /** Stops the server and every pending timer and delivery. */
  close(): Promise<void>;
}

/**
 * Starts the emulator of the messaging service on HTTP.
 *
 * @example
 * const emulator = await startEmulator({ port: 0, keyPairs: [{ id: 'k', secret: 's', location: 'paris' }] });
 * await fetch(`${emulator.baseUrl}/sms`, { method: 'POST', headers: { 'x-api-key-id': 'k', 'x-api-key-secret': 's', 'content-type': 'application/json' }, body: JSON.stringify({ to: '33612345678', body: 'Hi' }) });
 * await emulator.close();
 */
export async function startEmulator(
  options: EmulatorOptions,
  deps: EmulatorDeps = {},
): Promise<RunningEmulator> {
  const emulator = createEmulatorApp(options, deps);
  const { host, port: wantedPort, allowedHosts, keyPairs } = emulator.context.config;
  // Standing alone, the emulator answers every other path too, in its one error shape.
  const root = express();
  root.disable('x-powered-by');
  const guard = requireLocalHost({ allowedHosts, listenHost: host });
  // The control API reads every message and acts as any handset, with no key: no web page may
  // reach it by DNS rebinding.
  root.use('/_emulator', guard);
  // `/v1` neither, when its key pairs do not keep a page out: on loopback every client is on
  // this machine and names it so, and `dev:dev` is known to every page. Beyond loopback with
  // keys of its own, a container network names the service as it likes.
  if (isLoopback(host) || keyPairs.some(isWellKnown)) root.use('/v1', guard);
  root.use(emulator.app, routeNotFound, handleApiError(emulator.context.logger));
  const server = createServer(root);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wantedPort, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // A wildcard is reached on 127.0.0.1, the Host the control API answers without --allow-host.
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    close() {
      closing ??= (async () => {
        await emulator.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive sockets (clients, event streams) would otherwise hold close() open.
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
