import {
  type EmulatorDeps,
  type EmulatorKeyPair,
  type EmulatorOptions,
  type RunningEmulator,
  startEmulator,
} from '../../../src/emulator/index.ts';
import type { NotifiedSms, Sms, SmsStatus } from '../../../src/provider/schemas/sms.ts';
import { waitFor } from '../../support/wait-for.ts';

/** Two key pairs in two locations, to show that each sees only its own data. */
export const paris: EmulatorKeyPair = {
  id: 'paris-key',
  secret: 'paris-secret',
  location: 'paris',
};
export const lyon: EmulatorKeyPair = { id: 'lyon-key', secret: 'lyon-secret', location: 'lyon' };

/** A French mobile number, distinct per `n`, in the service's form. */
export function mobile(n = 0): string {
  return `3361234${String(n).padStart(4, '0')}`;
}

/** Test answers are read field by field and checked against the service's zod schemas. */
// biome-ignore lint/suspicious/noExplicitAny: see above; one alias keeps the escape hatch in one place
export type Json = any;

export interface JsonAnswer<T = Json> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestEmulator extends RunningEmulator {
  /** A /v1 call with the credentials of `keyPair` (paris by default; null sends none). */
  api<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    keyPair?: EmulatorKeyPair | null,
  ): Promise<JsonAnswer<T>>;
  /** A control API call under /_emulator. */
  control<T = Json>(method: string, path: string, body?: unknown): Promise<JsonAnswer<T>>;
  /** Polls `GET /sms/{id}` until the SMS has `status`; returns it. */
  waitForStatus(id: string, status: SmsStatus, keyPair?: EmulatorKeyPair): Promise<NotifiedSms>;
  /** `POST /sms` that must succeed; returns the answer body. */
  send(request: Record<string, unknown>, keyPair?: EmulatorKeyPair): Promise<Sms>;
}

/**
 * An emulator on a random loopback port, with every delay scaled down a hundredfold and the
 * paris and lyon key pairs. Options override these defaults (each top-level key as a whole).
 */
export async function startTestEmulator(
  options: Partial<EmulatorOptions> = {},
  deps: EmulatorDeps = {},
): Promise<TestEmulator> {
  const emulator = await startEmulator(
    {
      port: 0,
      timeScale: 0.01,
      keyPairs: [paris, lyon],
      // 4 s scaled to 40 ms is too short for a loaded CI machine to answer on loopback: deliveries
      // here get 1 s. Tests of the deadline itself pass their own webhookRetry.
      webhookRetry: { timeoutMs: 100_000 },
      ...options,
    },
    deps,
  );
  const call = async (
    url: string,
    method: string,
    body: unknown,
    headers: Record<string, string>,
  ) => {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? JSON.parse(text) : undefined,
    };
  };
  const test: TestEmulator = {
    ...emulator,
    api: (method, path, body, keyPair = paris) =>
      call(
        `${emulator.baseUrl}${path}`,
        method,
        body,
        keyPair ? { 'x-api-key-id': keyPair.id, 'x-api-key-secret': keyPair.secret } : {},
      ),
    control: (method, path, body) => call(`${emulator.url}/_emulator${path}`, method, body, {}),
    waitForStatus: (id, status, keyPair = paris) =>
      waitFor(
        async () => {
          const answer = await test.api('GET', `/sms/${id}`, undefined, keyPair);
          return answer.body?.status === status && (answer.body as NotifiedSms);
        },
        { message: `sms ${id} ${status}` },
      ),
    async send(request, keyPair = paris) {
      const answer = await test.api('POST', '/sms', request, keyPair);
      if (answer.status !== 201) {
        throw new Error(`POST /sms answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      }
      return answer.body;
    },
  };
  return test;
}
