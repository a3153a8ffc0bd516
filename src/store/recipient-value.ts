import type { RecipientRecord } from './campaign-records.ts';
import { storableJson } from './storable-json.ts';

/**
 * A recipient record as both drivers keep it: a small header (`{"s":state,"r":reason,"d":due,
 * "l":line,"z":time zone,"p":phone,"b":bot,"w":window,"f":request,"c":since,"g":generation,"v":revision}`), a line break, then the bot's input as
 * its own JSON. The Lua scripts decode and rewrite the header only: the input is never
 * re-encoded by Redis's JSON library, which would turn `[]` into `{}` and round numbers past 14
 * digits.
 */
export function encodeRecipient(record: RecipientRecord): string {
  const header: Record<string, unknown> = {
    s: record.state,
    g: record.generation,
    v: record.revision,
  };
  if (record.reason !== undefined) header.r = record.reason;
  if (record.due !== undefined) header.d = record.due;
  if (record.line !== undefined) header.l = record.line;
  if (record.timeZone !== undefined) header.z = record.timeZone;
  if (record.phone !== undefined) header.p = record.phone;
  if (record.bot !== undefined) header.b = record.bot;
  if (record.window !== undefined) header.w = record.window;
  if (record.request !== undefined) header.f = record.request;
  if (record.since !== undefined) header.c = record.since;
  return `${storableJson(header)}\n${record.input === undefined ? '' : storableJson(record.input)}`;
}

/** The inverse of `encodeRecipient`. */
export function decodeRecipient(value: string): RecipientRecord {
  const split = value.indexOf('\n');
  const header = JSON.parse(split < 0 ? value : value.slice(0, split)) as {
    s: RecipientRecord['state'];
    r?: string;
    d?: number;
    l?: number;
    z?: string;
    p?: string;
    b?: string;
    w?: string;
    f?: string;
    c?: number;
    g: number;
    v: number;
  };
  const input = split < 0 ? '' : value.slice(split + 1);
  return {
    state: header.s,
    generation: header.g,
    revision: header.v,
    ...(header.r !== undefined && { reason: header.r }),
    ...(header.d !== undefined && { due: header.d }),
    ...(header.l !== undefined && { line: header.l }),
    ...(header.z !== undefined && { timeZone: header.z }),
    ...(header.p !== undefined && { phone: header.p }),
    ...(header.b !== undefined && { bot: header.b }),
    ...(header.w !== undefined && { window: header.w }),
    ...(header.f !== undefined && { request: header.f }),
    ...(header.c !== undefined && { since: header.c }),
    ...(input !== '' && { input: JSON.parse(input) as unknown }),
  };
}
