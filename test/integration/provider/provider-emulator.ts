import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.ts';
import {
  createMessagingClient,
  type MessagingClient,
  type MessagingClientOptions,
} from '../../../src/provider/messaging-client.ts';

export const paris = { id: 'paris-key', secret: 'paris-secret', location: 'paris' };
export const lyon = { id: 'lyon-key', secret: 'lyon-secret', location: 'lyon' };

export interface ProviderEmulator {
  emulator: RunningEmulator;
  /** A client of the paris key pair; options override the defaults (no waits between retries). */
  client(options?: Partial<MessagingClientOptions>): MessagingClient;
  /** A control API call (`/_emulator/...`); returns the parsed JSON answer. */
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** The /v1 requests the emulator received, optionally only `METHOD /v1/path`. */
  requests(filter?: string): Promise<{ method: string; path: string; status: number }[]>;
  close(): Promise<void>;
}

/** The emulator on a random loopback port with the paris and lyon key pairs, and clients of it. */
export async function startProviderEmulator(
  options: { rateLimitPerSecond?: number } = {},
): Promise<ProviderEmulator> {
  const emulator = await startEmulator({
    port: 0,
    timeScale: 0.01,
    keyPairs: [paris, lyon],
    // The client's tests register https://bots.example.com URLs; nothing is ever sent to them.
    allowRemoteWebhooks: true,
    ...options,
  });
  const clients: MessagingClient[] = [];
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${emulator.url}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    emulator,
    client(overrides = {}) {
      const client = createMessagingClient({
        baseUrl: emulator.baseUrl,
        keyId: paris.id,
        keySecret: paris.secret,
        location: 'paris',
        defaultCountry: 'FR',
        sleep: async () => {},
        ...overrides,
      });
      clients.push(client);
      return client;
    },
    control,
    async requests(filter) {
      const all = await control<{ method: string; path: string; status: number }[]>(
        'GET',
        '/requests',
      );
      return filter ? all.filter((r) => `${r.method} ${r.path}` === filter) : all;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await emulator.close();
    },
  };
}
