import type { CampaignReport } from '../campaigns/campaign-report.ts';
import type { ImportReport } from '../campaigns/import-report.ts';
import type { CampaignListEntry } from '../campaigns/list-campaigns.ts';
import type { CampaignMeta } from '../store/campaign-records.ts';
import { formatRecord, formatTable } from './format-table.ts';

const count = (n: number | undefined) => (n ?? 0).toLocaleString('en-US');

/** The exclusions in the order an operator reads them, with their names. */
const reasons = [
  ['opted_out', 'opted out'],
  ['bad_phone', 'bad phone'],
  ['bad_input', 'bad input'],
  ['bad_date', 'bad date'],
  ['past_due', 'past due'],
  ['duplicate', 'duplicate phone'],
] as const;

/** The funnel's stages, in order. */
const stages = [
  'sent',
  'delivered',
  'answered',
  'completed',
  'opted_out',
  'errored',
  'expired',
  'interrupted',
] as const;

/** When a campaign sends: `at 2027-12-07T10:00` or `-24h from column at`. */
export function scheduleText(meta: Pick<CampaignMeta, 'schedule'>): string {
  const { schedule } = meta;
  return 'at' in schedule
    ? `at ${schedule.at}`
    : `${schedule.offset} from column ${schedule.relativeTo}`;
}

/** `replyflow campaigns create`'s report: totals, exclusions by reason, the first rows. */
export function formatImportReport(report: ImportReport): string {
  const out: string[] = [];
  const meta = report.campaign;
  if (report.dryRun) out.push('Dry run: nothing was stored.');
  else if (meta) {
    out.push(
      `Campaign ${meta.name} (bot ${meta.bot}, ${meta.location}): ${meta.generation === 1 ? 'created' : `imported again (import ${meta.generation})`}, ${meta.status}, ${meta.ratePerSecond}/s.`,
    );
  }
  const totals: Record<string, string | undefined> = {
    rows: count(report.rows),
    'to send': count(report.accepted),
    excluded: count(report.excluded),
  };
  for (const [reason, label] of reasons) {
    totals[`  ${label}`] = count(report.byReason[reason]);
  }
  if (report.firstSendAt !== undefined) {
    totals['first send'] = report.firstSendAt;
    totals['last send'] = report.lastSendAt;
  }
  if (report.imported) {
    const { added, rescheduled, unchanged, cancelled } = report.imported;
    totals.added = count(added);
    totals.rescheduled = count(rescheduled);
    totals.unchanged = count(unchanged);
    totals['cancelled (no longer in the file)'] = count(cancelled);
  }
  out.push(formatRecord(totals), '');
  out.push(`First rows (send times on each recipient's clock):`);
  const rows = report.preview.map((row) =>
    'excluded' in row
      ? { line: row.line, phone: '', 'send at': `excluded: ${row.excluded}`, input: row.message }
      : {
          line: row.line,
          phone: row.phone,
          'send at': row.at,
          input: JSON.stringify(row.input),
        },
  );
  out.push(formatTable(rows, ['line', 'phone', 'send at', 'input']));
  return out.join('\n');
}

/** `replyflow campaigns list`'s table. */
export function formatCampaignList(entries: readonly CampaignListEntry[]): string {
  const sum = (recipients: Record<string, number>, prefix: string) =>
    Object.entries(recipients)
      .filter(([field]) => field === prefix || field.startsWith(`${prefix}:`))
      .reduce((total, [, n]) => total + n, 0);
  const rows = entries.map(({ meta, recipients, total }) => ({
    name: meta.name,
    location: meta.location,
    bot: meta.bot,
    status: meta.status,
    schedule: scheduleText(meta),
    rate: `${meta.ratePerSecond}/s`,
    recipients: count(total),
    waiting: count(sum(recipients, 'scheduled') + sum(recipients, 'held')),
    started: count(sum(recipients, 'started')),
    skipped: count(sum(recipients, 'skipped')),
    failed: count(sum(recipients, 'failed')),
  }));
  return formatTable(rows, [
    'name',
    'location',
    'bot',
    'status',
    'schedule',
    'rate',
    'recipients',
    'waiting',
    'started',
    'skipped',
    'failed',
  ]);
}

/** `replyflow campaigns show`'s page: the definition, the recipients per state, the funnel. */
export function formatCampaignReport(report: CampaignReport): string {
  const { meta } = report;
  const definition = formatRecord({
    campaign: meta.name,
    location: meta.location,
    bot: meta.bot,
    status: meta.status,
    schedule: scheduleText(meta),
    rate: `${meta.ratePerSecond}/s`,
    window: meta.window,
    'time zone': meta.timeZone,
    'time zone column': meta.timeZoneColumn,
    late: meta.late.kind === 'skip' ? 'skipped' : `sent when at most ${meta.late.ms / 1000} s late`,
    created: new Date(meta.createdAt).toISOString(),
    updated: new Date(meta.updatedAt).toISOString(),
  });
  const order = ['scheduled', 'held', 'started', 'skipped', 'failed'];
  const rank = (field: string) => {
    const i = order.indexOf(field.split(':')[0] ?? field);
    return i === -1 ? order.length : i;
  };
  const states = Object.entries(report.recipients)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([field, n]) => {
      const [state, reason] = field.split(':');
      return { state, reason: reason?.replaceAll('_', ' '), recipients: count(n) };
    });
  states.push({ state: 'total', reason: undefined, recipients: count(report.total) });
  const funnel = stages.map((stage) => ({
    stage: stage.replaceAll('_', ' '),
    conversations: count(report.funnel[stage]),
  }));
  return [
    definition,
    '',
    'Recipients:',
    formatTable(states, ['state', 'reason', 'recipients']),
    '',
    'Started conversations:',
    formatTable(funnel, ['stage', 'conversations']),
  ].join('\n');
}
