import type { OutboundMessage } from '../records.ts';
import { storableJson } from '../storable-json.ts';
import { storeLimits } from '../store-limits.ts';
import { joinValueLines, valueLines } from './conversation-value.ts';
import { transcriptLineWith } from './transcript-line-with.ts';
import { newWriteMark } from './write-mark.ts';

/** A conversation's value after a recorded send, built here rather than in Lua (issue 26). */
export interface SentValue {
  value: string;
  /** The records the messages line let go, each for a key of its own: sms id, stored text. */
  spilledMessages: Array<[smsId: string, stored: string]>;
  /** Transcript entries past the value's inline ones, for the conversation's transcript list. */
  spilledTranscript: string[];
}

/** An id written in JSON as it is (lib/messages-line.lua's `plainId`). */
export const plainId = (id: string) => !/[^A-Za-z0-9_:.-]/.test(id);

/** A messages line entry's parts, as `entryParts` in lib/messages-line.lua reads them. */
export const entryPattern = /^\["([A-Za-z0-9_:.-]*)",(\d),([01]),(\{.*\})\]$/;

/**
 * What `record-sent-13.lua` writes into the conversation's value when the service accepted
 * `message` as sms `smsId` and no record of that sms exists yet: the record (`recordJson`, as
 * the messages line holds it: message-value.ts less `v` and the location) added to the
 * messages line, the oldest past `storeLimits.messagesInRecord` let go, and the SMS in the
 * transcript. Undefined for what the script alone does: a value in another layout, an sms id
 * the line would have to escape, an sms the line holds already, a contact update.
 */
export function valueAfterSent(
  stored: string,
  message: OutboundMessage,
  smsId: string,
  rank: number,
  recordJson: string,
  now: number,
): SentValue | undefined {
  if (stored === '' || !plainId(smsId) || message.contact !== undefined) return undefined;
  let lines: ReturnType<typeof valueLines>;
  try {
    lines = valueLines(stored);
  } catch {
    // Not this release's layout: the merging script reads what it can and says what it cannot.
    return undefined;
  }
  if (!lines || lines.messages.includes(`["${smsId}",`)) return undefined;
  const messages = messagesLineWith(
    lines.messages,
    `["${smsId}",${rank},1,${recordJson}]`,
    message.location,
  );
  if (!messages) return undefined;
  const entry = `o[${now.toFixed(0)},${JSON.stringify(smsId)},${storableJson(message.body)}]`;
  const transcript = transcriptLineWith(lines.transcript, entry);
  return {
    value: joinValueLines({
      ...lines,
      mark: newWriteMark(),
      messages: messages.line,
      transcript: transcript.line,
    }),
    spilledMessages: messages.spilled,
    spilledTranscript: transcript.spilled,
  };
}

/**
 * A messages line with `entry` added last, keeping the newest `messagesInRecord`; the oldest
 * are answered as their own keys hold them (`spilledMessageText`: `v` and the location put
 * back). Undefined when the line cannot be read as text.
 */
function messagesLineWith(
  line: string,
  entry: string,
  location: string,
): { line: string; spilled: Array<[string, string]> } | undefined {
  if (line === '' || line === '[]') return { line: `[${entry}]`, spilled: [] };
  if (!line.startsWith('[') || !line.endsWith(']')) return undefined;
  // `],["` only ever stands between two entries: no JSON string holds an unescaped quote.
  const entries: string[] = [];
  let from = 1;
  for (let at = line.indexOf('],["', from); at !== -1; at = line.indexOf('],["', from)) {
    entries.push(line.slice(from, at + 1));
    from = at + 2;
  }
  entries.push(line.slice(from, -1));
  const drop = entries.length + 1 - storeLimits.messagesInRecord;
  const spilled: Array<[string, string]> = [];
  for (const text of entries.slice(0, Math.max(0, drop))) {
    const parts = entryPattern.exec(text);
    if (!parts) return undefined;
    const [, id = '', rank = '', sent = '', record = '{}'] = parts;
    const head = `{"v":1,"l":${JSON.stringify(location)}`;
    spilled.push([
      id,
      `${rank}${sent}${record === '{}' ? `${head}}` : `${head},${record.slice(1)}`}`,
    ]);
  }
  const kept = entries.slice(Math.max(0, drop));
  return { line: `[${[...kept, entry].join(',')}]`, spilled };
}
