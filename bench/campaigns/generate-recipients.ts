import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/** What the generated file holds, so the report can check that every row was accounted for. */
export interface GeneratedFile {
  path: string;
  rows: number;
  bytes: number;
  /** Rows written to be refused, per the reason replyflow should give. */
  bad: Record<'bad_phone' | 'bad_date' | 'bad_input' | 'duplicate', number>;
}

/**
 * Writes a recipient CSV (`phone,name,at,tz`) of `rows` data rows, the same for the same count:
 * distinct French mobile numbers in three spellings (international with spaces, national, bare
 * digits: the campaign's default country is FR), appointments over December 2027 as wall times
 * (a few with an offset), a time zone on 30 % of the rows, and 2 % bad rows: landlines and
 * garbage numbers, unreadable dates, unknown zones, a quote left open (unless `openQuotes` is
 * false: those rows are then good), a row with a value too many, and numbers already used.
 */
export async function generateRecipients(
  path: string,
  rows: number,
  options: { openQuotes?: boolean } = {},
): Promise<GeneratedFile> {
  const openQuotes = options.openQuotes ?? true;
  const out = createWriteStream(path);
  const bad: GeneratedFile['bad'] = { bad_phone: 0, bad_date: 0, bad_input: 0, duplicate: 0 };
  let bytes = 0;
  let chunk = 'phone,name,at,tz\n';
  for (let i = 0; i < rows; i++) {
    const digits = String(10_000_000 + i).slice(-8);
    let phone =
      i % 3 === 0
        ? `+33 6 ${digits.slice(0, 2)} ${digits.slice(2, 4)} ${digits.slice(4, 6)} ${digits.slice(6)}`
        : i % 3 === 1
          ? `06${digits}`
          : `336${digits}`;
    const day = 1 + (i % 31);
    const minutes = (i * 7) % 1_440;
    let at = `2027-12-${String(day).padStart(2, '0')}T${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    if (i % 10 === 5) at += '+01:00';
    let tz = i % 10 < 7 ? '' : i % 10 < 9 ? 'Europe/Paris' : 'America/New_York';
    let name = `Person ${i}`;
    let extra = '';
    // 2 % bad rows, spread through the file: 20 in every 1,000.
    const slot = i % 1_000;
    if (slot < 5) {
      phone = `+33 1 ${digits.slice(0, 2)} ${digits.slice(2, 4)} ${digits.slice(4, 6)} ${digits.slice(6)}`;
      bad.bad_phone++;
    } else if (slot < 8) {
      phone = 'unknown';
      bad.bad_phone++;
    } else if (slot < 12) {
      at = `${day}/12/2027`;
      bad.bad_date++;
    } else if (slot < 14) {
      tz = 'Mars/Olympus_Mons';
      bad.bad_input++;
    } else if (slot < 16) {
      if (openQuotes) {
        name = `"Person ${i}`;
        bad.bad_input++;
      }
    } else if (slot === 16) {
      extra = ',surplus';
      bad.bad_input++;
    } else if (slot < 20 && i >= 1_000) {
      // The number of a good row of the thousand before (its slot 100).
      const earlier = String(10_000_000 + i - 1_000 - slot + 100).slice(-8);
      phone = `+336${earlier}`;
      bad.duplicate++;
    }
    chunk += `${phone},${name},${at},${tz}${extra}\n`;
    if (chunk.length > 1 << 16) {
      bytes += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  bytes += Buffer.byteLength(chunk);
  out.end(chunk);
  await once(out, 'finish');
  return { path, rows, bytes, bad };
}
