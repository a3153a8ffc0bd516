import type { MachineInfo } from '../lib/machine.ts';
import { markdownTable } from '../lib/stats.ts';
import { echoBot } from '../reply-loop/echo-bot.ts';
import type { KeyCensus, KeyTypeCount } from './key-census.ts';
import type { LoadedConversations } from './load-conversations.ts';
import type { FootprintReport } from './measure-footprint.ts';
import onceBot from './once-bot.ts';

const whole = (n: number) => Math.round(n).toLocaleString('en');
const bytes = (n: number) => (Number.isFinite(n) ? `${whole(n)} B` : '–');

/** `1.2 MiB`, `3.4 GiB`: binary units, as Redis's `used_memory_human`. */
export function humanBytes(n: number): string {
  if (Math.abs(n) >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (Math.abs(n) >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  return `${(n / 2 ** 10).toFixed(1)} KiB`;
}

/** `60 s`, `7 d`: a key's time left, roughly. */
function duration(ms: number | undefined): string {
  if (ms === undefined) return '–';
  if (ms >= 86_400_000) return `${(ms / 86_400_000).toFixed(1)} d`;
  if (ms >= 3_600_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 1000).toFixed(0)} s`;
}

function loadLine(label: string, load: LoadedConversations): string {
  return (
    `- ${label}: ${whole(load.conversations)} conversations started (${load.failed} failed, ` +
    `${load.retried} posts retried), ${whole(load.sms)} SMS sent, ${whole(load.statusNotifications)} ` +
    `status notifications delivered (${load.failedStatusAttempts} delivery attempts failed); ` +
    `posted in ${(load.loadMs / 1000).toFixed(1)} s, at rest after ${(load.settledMs / 1000).toFixed(1)} s`
  );
}

function typeTable(census: KeyCensus, conversations: number): string {
  const rows = census.types.map((type) => [
    type.type,
    type.redisType,
    whole(type.count),
    (type.count / conversations).toFixed(2),
    whole(type.noTtl),
    type.withTtl > 0 ? `${duration(type.minTtlMs)}–${duration(type.maxTtlMs)}` : '–',
    `${type.sampled}`,
    whole(type.meanBytes),
    humanBytes(type.totalBytes),
    whole(type.totalBytes / conversations),
  ]);
  rows.push([
    '**all**',
    '',
    whole(census.keys),
    (census.keys / conversations).toFixed(2),
    whole(census.types.reduce((sum, type) => sum + type.noTtl, 0)),
    '',
    '',
    '',
    humanBytes(census.totalBytes),
    whole(census.totalBytes / conversations),
  ]);
  return markdownTable(
    [
      'key type',
      'Redis type',
      'keys',
      'keys / conv',
      'no TTL',
      'TTL left',
      'sampled',
      'mean B (MEMORY USAGE)',
      'total (estimate)',
      'B / conv',
    ],
    rows,
  );
}

/** What the ended conversations added, type by type (second census minus the first). */
function addedTable(before: KeyCensus, after: KeyCensus, conversations: number): string {
  const byType = new Map<string, KeyTypeCount>(before.types.map((type) => [type.type, type]));
  const rows = after.types
    .map((type) => {
      const earlier = byType.get(type.type);
      const keys = type.count - (earlier?.count ?? 0);
      const total = type.totalBytes - (earlier?.totalBytes ?? 0);
      return { type, keys, total };
    })
    .filter((row) => row.keys !== 0)
    .sort((a, b) => b.total - a.total)
    .map(({ type, keys, total }) => [
      type.type,
      whole(keys),
      (keys / conversations).toFixed(2),
      whole(type.noTtl - (byType.get(type.type)?.noTtl ?? 0)),
      whole(total / conversations),
    ]);
  return markdownTable(
    ['key type', 'keys added', 'per ended conv', 'no TTL', 'B / ended conv'],
    rows,
  );
}

function noTtlLine(census: KeyCensus): string {
  const types = census.types.filter((type) => type.noTtl > 0);
  return types.length === 0
    ? 'none'
    : types.map((type) => `${type.type}: ${whole(type.noTtl)}`).join(', ');
}

/** The printed report of a footprint run: plain text with markdown tables. */
export function formatFootprintReport(report: FootprintReport, machine: MachineInfo): string {
  const { replyflow: rf, baseline, settings } = report;
  const idleDelta = rf.idle.usedMemory - rf.before.usedMemory;
  const endedDelta = rf.ended.usedMemory - rf.idle.usedMemory;
  const baselineDelta = baseline.after.usedMemory - baseline.before;
  // The fixed part is where the slope meets zero conversations: the empty server, plus what
  // came with the first traffic whatever the count.
  const interceptOf = (usedMemory: number, perConversation: number, conversations: number) =>
    usedMemory - perConversation * conversations;
  const fixed = interceptOf(
    rf.idle.usedMemory,
    rf.idleBytesPerConversation,
    rf.idleLoad.conversations,
  );
  const project = (n: number) => fixed + rf.idleBytesPerConversation * n;
  const baselineFixed = interceptOf(
    baseline.after.usedMemory,
    baseline.bytesPerConversation,
    baseline.load.conversations,
  );
  const endedRecords = rf.conversations[`${onceBot.id} done`] ?? 0;
  const activeRecords = rf.conversations[`${echoBot.id} active`] ?? 0;
  const waited = (reading: FootprintReport['replyflow']['idle']) =>
    reading.waitedOut.length > 0
      ? ` (after waiting ${(reading.waitedMs / 1000).toFixed(0)} s for short-lived keys to expire: ${reading.waitedOut
          .map((type) => `${type.type} ${whole(type.count)}`)
          .join(', ')})`
      : '';
  const commands = Object.entries(rf.idleCommands.byCommand)
    .sort((a, b) => b[1] - a[1])
    .map(([name, calls]) => `${name} ${((calls * 1000) / rf.idleCommands.windowMs).toFixed(1)}/s`)
    .join(', ');
  return [
    `Redis footprint: replyflow at ${machine.commit}, Redis ${report.redisVersion} (a fresh redis-server per system, no persistence), ` +
      `key prefix '${report.prefix}', ${report.partitions} partitions; ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}; ` +
      `${(report.durationMs / 1000).toFixed(0)} s`,
    '',
    'Load (one keyword reply notification per phone, posted to the webhook; the emulator posts the SMS statuses back to it):',
    loadLine(`idle (${echoBot.id}: ECHO, one answer, stays active)`, rf.idleLoad),
    loadLine(`ended (${onceBot.id}: ONCE, one answer, final state)`, rf.endedLoad),
    loadLine('baseline (naive handler, one snapshot string per phone)', baseline.load),
    `- conversation records at the end: ${Object.entries(rf.conversations)
      .map(([label, n]) => `${label} ${whole(n)}`)
      .join(', ')} ` +
      `(ended ${endedRecords === rf.endedLoad.conversations ? 'matches' : 'DOES NOT match'} the ${whole(rf.endedLoad.conversations)} loaded; ` +
      `active ${activeRecords === rf.idleLoad.conversations ? 'matches' : 'DOES NOT match'} the ${whole(rf.idleLoad.conversations)} idle)`,
    '',
    'used_memory (INFO memory):',
    `- before the load (empty server, replyflow connected): ${humanBytes(rf.before.usedMemory)}`,
    `- after the first ${whole(rf.firstLoad.conversations)} idle conversations: ${humanBytes(rf.first.usedMemory)}${waited(rf.first)}${rf.first.stable ? '' : ' (NOT stable)'}`,
    `- after ${whole(rf.idleLoad.conversations)} idle conversations: ${humanBytes(rf.idle.usedMemory)} (+${humanBytes(idleDelta)} from the empty server)${waited(rf.idle)}${rf.idle.stable ? '' : ' (NOT stable)'}`,
    `  **${bytes(rf.idleBytesPerConversation)} per idle conversation** (from the first ${whole(rf.firstLoad.conversations)} to all: the fixed costs that come with the first traffic left out; ` +
      `${bytes(rf.idleBytesFromEmpty)} from the empty server), ${(rf.idle.census.keys / rf.idleLoad.conversations).toFixed(2)} keys each`,
    `- after ${whole(rf.endedLoad.conversations)} ended conversations more: ${humanBytes(rf.ended.usedMemory)} (+${humanBytes(endedDelta)})${waited(rf.ended)}${rf.ended.stable ? '' : ' (NOT stable)'}`,
    `  **${bytes(rf.endedBytesPerConversation)} per ended conversation**`,
    `- naive baseline, ${whole(baseline.load.conversations)} conversations on their own server: +${humanBytes(baselineDelta)}, ` +
      `**${bytes(baseline.bytesPerConversation)} per conversation** (the slope, as replyflow's); replyflow / baseline: **${(rf.idleBytesPerConversation / baseline.bytesPerConversation).toFixed(1)}×**`,
    '',
    `Keys after the idle load, by type (MEMORY USAGE … SAMPLES 0 of up to ${settings.samplePerType} keys per type; "/ conv" divides by the ${whole(rf.idleLoad.conversations)} idle conversations):`,
    typeTable(rf.idle.census, rf.idleLoad.conversations),
    `(MEMORY USAGE counts a key's own allocations; used_memory also holds the main and expires dictionaries' entries and buckets: ` +
      `${bytes((idleDelta - (rf.idle.census.totalBytes - rf.before.census.totalBytes)) / rf.idleLoad.conversations)} per idle conversation here.)`,
    '',
    `Keys the ${whole(rf.endedLoad.conversations)} ended conversations added:`,
    addedTable(rf.idle.census, rf.ended.census, rf.endedLoad.conversations),
    '',
    `Keys without a TTL (PTTL -1) at the end, by type: ${noTtlLine(rf.ended.census)}`,
    '',
    `Idle replyflow process (all roles, at rest after the idle load): **${rf.idleCommands.perSecond.toFixed(1)} Redis commands/s** ` +
      `over ${(rf.idleCommands.windowMs / 1000).toFixed(1)} s (INFO commandstats; commands run by scripts count under their own names too): ${commands || 'none'}`,
    '',
    `Projection for idle conversations (fixed part ${humanBytes(fixed)} + ${bytes(rf.idleBytesPerConversation)} × N): ` +
      `1M → **${humanBytes(project(1e6))}**, 10M → **${humanBytes(project(1e7))}** ` +
      `(baseline: 1M → ${humanBytes(baselineFixed + baseline.bytesPerConversation * 1e6)}, 10M → ${humanBytes(baselineFixed + baseline.bytesPerConversation * 1e7)})`,
  ].join('\n');
}
