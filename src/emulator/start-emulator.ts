import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createEmulatorApp, type EmulatorDeps } from './create-emulator-app.ts';
import type { EmulatorOptions } from './emulator-options.ts';
import { handleApiError, routeNotFound } from './handle-api-error.ts';
import { requireLocalHost } from './require-local-host.ts';

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
  const { host, port: wantedPort, allowedHosts } = emulator.context.config;
  // Standing alone, the emulator answers every other path too, in its one error shape.
  const root = express();
  root.disable('x-powered-by');
  // The control API reads every message and acts as any handset, with no key: no web page may
  // reach it by DNS rebinding. `/v1` needs a key pair and may be named by a container network.
  root.use('/_emulator', requireLocalHost({ allowedHosts, listenHost: host }));
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
