// One import into Redis, alone in its own process so its peak RSS is its own: `replyflow`
// (`createCampaign`: the file read with readRecipients, each row stored with its counters and
// in the due index) or `baseline` (what a user writes by hand: csv-parse into a loop that
// normalises the phone and pipelines ZADD due → phone and HSET phone → the row's JSON). Started
// by `store-phase.ts`; answers `run`. Only types and the bench's own helpers are imported up
// front: each variant loads its modules itself, so that the baseline's process does not hold
// the library, and `startMiB` is the runtime before either (node, tsx and this file).
import { serveParent } from '../lib/child.ts';
import { startMemoryPeak } from '../timers/memory-peak.ts';

const startMiB = process.memoryUsage().rss / 2 ** 20;

export type StoreVariant = 'replyflow' | 'baseline';

/** What `replyflow campaigns create` loads: the library (a bots folder imports it whole). */
const loadReplyflow = () =>
  Promise.all([
    import('node:fs'),
    import('ioredis'),
    import('../../src/bot/bot-registry.ts'),
    import('../../src/campaigns/create-campaign.ts'),
    import('../../src/store/redis/create-redis-store.ts'),
    import('../../src/index.ts'),
    import('xstate'),
  ]);

/** What the hand-written import needs. */
const loadBaseline = () =>
  Promise.all([
    import('node:fs'),
    import('ioredis'),
    import('csv-parse'),
    import('libphonenumber-js/max'),
  ]);

export interface StoreRequest {
  variant: StoreVariant;
  redisUrl: string;
  path: string;
  now: number;
  expectedRows: number;
}

export interface StoreMeasure {
  rows: number;
  /** Recipients waiting for their time (replyflow: `scheduled`; the baseline: every mobile). */
  scheduled: number;
  seconds: number;
  /** RSS when the process started, before either variant's modules (node, tsx, this file), MiB. */
  startMiB: number;
  memory: ReturnType<ReturnType<typeof startMemoryPeak>['stop']>;
}

async function runReplyflow(
  request: StoreRequest,
): Promise<Pick<StoreMeasure, 'rows' | 'scheduled'>> {
  const [
    { createReadStream },
    { Redis },
    { createBotRegistry },
    { createCampaign },
    { createRedisStore },
    { defineBot },
    { setup },
  ] = await loadReplyflow();
  // A bot with no input schema: the bench measures the import, not a bot's checks.
  const reminder = defineBot({
    id: 'reminder',
    machine: setup({}).createMachine({ initial: 'done', states: { done: { type: 'final' } } }),
  });
  const redis = new Redis(request.redisUrl);
  const store = createRedisStore({ redis, prefix: 'rf:' });
  try {
    const result = await createCampaign(
      {
        store,
        registry: createBotRegistry([{ bot: reminder, file: 'reminder.ts' }]),
        locations: [{ name: 'paris', defaultCountry: 'FR', rateLimitPerSecond: 20 } as never],
        now: () => request.now,
      },
      {
        name: 'december',
        bot: 'reminder',
        relativeTo: 'at',
        offset: '-1d',
        timeZone: 'Europe/Paris',
        timeZoneColumn: 'tz',
        window: '09:00-19:00',
        sendIfWithin: '6h',
        fileName: request.path,
      },
      // Read as replyflow campaigns create reads it: 16 KiB at a time.
      createReadStream(request.path, { highWaterMark: 16 * 1024 }),
      { expectedRows: request.expectedRows },
    );
    const counts = await store.campaignCounts({ location: 'paris', name: 'december' });
    return { rows: result.summary.rows, scheduled: counts.scheduled ?? 0 };
  } finally {
    await store.close();
    redis.disconnect();
  }
}

async function runBaseline(
  request: StoreRequest,
): Promise<Pick<StoreMeasure, 'rows' | 'scheduled'>> {
  const [{ createReadStream }, { Redis }, { parse }, { parsePhoneNumberFromString }] =
    await loadBaseline();
  const redis = new Redis(request.redisUrl);
  const parser = createReadStream(request.path).pipe(
    parse({ columns: true, bom: true, skip_records_with_error: true }),
  );
  let rows = 0;
  let scheduled = 0;
  let pipeline = redis.pipeline();
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    rows++;
    const number = parsePhoneNumberFromString(record.phone ?? '', 'FR');
    const due = Date.parse(record.at ?? '') - 86_400_000;
    if (!number?.isValid() || number.getType() !== 'MOBILE' || Number.isNaN(due)) continue;
    const phone = number.number.slice(1);
    scheduled++;
    pipeline.zadd('campaign:december:due', due, phone);
    pipeline.hset(
      'campaign:december:rows',
      phone,
      JSON.stringify({ name: record.name, at: record.at }),
    );
    if (scheduled % 500 === 0) {
      await pipeline.exec();
      pipeline = redis.pipeline();
    }
  }
  await pipeline.exec();
  redis.disconnect();
  return { rows, scheduled };
}

async function run(request: StoreRequest): Promise<StoreMeasure> {
  // The modules first, so that "before" is the process ready to import.
  await (request.variant === 'replyflow' ? loadReplyflow() : loadBaseline());
  const memory = startMemoryPeak();
  const started = performance.now();
  const outcome =
    request.variant === 'replyflow' ? await runReplyflow(request) : await runBaseline(request);
  const seconds = (performance.now() - started) / 1000;
  return { ...outcome, seconds, startMiB, memory: memory.stop() };
}

serveParent({ run: (message) => run(message as unknown as StoreRequest) }, async () => {});
process.send?.({ type: 'ready' });
