import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { createEventDelivery } from '../../../src/app/create-event-delivery.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import { eventTypeProblem } from '../../../src/events/event-type-problem.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { createMetrics } from '../../../src/observability/metrics.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import { LogCapture } from '../../support/log-capture.ts';

const secret = newEventSecret();

async function configWith(events: unknown[]): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'rf-types-')), 'replyflow.config.json');
  const location = {
    name: 'paris',
    providerUrl: 'https://api.example.com/v1',
    apiKeyId: 'k',
    apiKeySecret: 's',
    events,
  };
  await writeFile(file, JSON.stringify({ locations: [location] }));
  return file;
}

describe('subscription types', () => {
  it("takes replyflow's types and a bot's own dotted names", () => {
    for (const type of [
      'conversation.started',
      'conversation.ended',
      'result.recorded',
      'optout',
      'optin',
      'appointment.confirmed',
      'survey.low_score',
    ]) {
      expect(eventTypeProblem(type), type).toBeUndefined();
    }
  });

  it('refuses a type no event can have, with the nearest one', () => {
    expect(eventTypeProblem('opt-out')).toMatch(
      /'opt-out' is not an event type: did you mean 'optout'\?/,
    );
    expect(eventTypeProblem('Conversation.Ended')).toMatch(/did you mean 'conversation.ended'\?/);
    expect(eventTypeProblem('stop')).toMatch(
      /'stop' is not an event type: replyflow's are conversation.started, .*lowercase words joined by dots/,
    );
    expect(eventTypeProblem('conversation.end')).toMatch(
      /'conversation.end' is not an event replyflow emits: did you mean 'conversation.ended'\?.*conversation\.\* and result\.\* are replyflow's/,
    );
    expect(eventTypeProblem('result.saved')).toMatch(/not an event replyflow emits/);
  });

  it('stops the start naming the field of a mistyped type', async () => {
    const file = await configWith([
      { url: 'https://crm.example.com/in', secret, types: ['optout', 'opt_in'] },
    ]);
    const message = await loadConfig({ REPLYFLOW_CONFIG: file }).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
    expect(message).toMatch(
      /locations\.0\.events\.0\.types\.1 'opt_in' is not an event type: did you mean 'optin'\?/,
    );
  });
});

describe('a subscription to a private address, at start', () => {
  async function warningsFor(events: unknown[]): Promise<string[]> {
    const config = await loadConfig({ REPLYFLOW_CONFIG: await configWith(events) });
    const logs = new LogCapture();
    createEventDelivery({
      locations: config.locations,
      store: createMemoryStore({}),
      clock: createManualClock(0),
      logger: createLogger({ level: 'info', destination: logs.stream }),
      metrics: createMetrics(),
      sender: false,
      leaseMs: 30_000,
    });
    return logs.lines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 40)
      .map((line) => line.msg);
  }

  it('says in one line that http://localhost and private IPs will be refused when sent', async () => {
    const warnings = await warningsFor([
      { url: 'http://localhost:4000/hook', secret },
      { url: 'https://10.1.2.3/in', secret },
      { url: 'https://[::1]:8443/in', secret },
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^events to localhost \(a loopback address\) will be refused when sent: set allowPrivateAddresses: true/,
      ),
      expect.stringMatching(/^events to 10\.1\.2\.3 \(a private address\) will be refused/),
      expect.stringMatching(/^events to ::1 \(a loopback address\) will be refused/),
    ]);
  });

  it('says nothing when private addresses are allowed, or the host is a public name', async () => {
    const warnings = await warningsFor([
      { url: 'http://127.0.0.1:4000/hook', secret, allowPrivateAddresses: true },
      { url: 'https://booking.example.com/in', secret },
    ]);
    expect(warnings).toEqual([]);
  });
});
