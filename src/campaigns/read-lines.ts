/** One physical line of a file: its number (from 1) and text, or no text when it was too long. */
export interface TextLine {
  readonly number: number;
  /** Without its line break (`\n` or `\r\n`); undefined when longer than the limit. */
  readonly text: string | undefined;
}

/** A line longer than this is not kept: a file without line breaks must not fill the memory. */
export const defaultMaxLineLength = 1 << 20;

/**
 * The most lines a batch holds. A batch's rows live until the last of them is handled: the
 * ~1,300 lines of a 64 KiB chunk outlive a few young-generation collections, get promoted, and
 * raised the peak RSS of a million-row import by about 30 MiB (bench/campaigns).
 */
const batchLines = 128;

/**
 * Bytes (or characters) of a chunk decoded and split at a time. Decoded whole, a 64 KiB chunk's
 * text and its lines lived until its last line was read (every line is a slice of that text):
 * long enough to be promoted to the old generation, about 80 bytes a row that only a full
 * collection frees (bench/campaigns).
 */
const pieceSize = 8 * 1024;

/**
 * A file's bytes as text, in pieces of at most 8 KiB: UTF-8 (an invalid sequence becomes U+FFFD,
 * a character cut between two chunks is joined), or UTF-16 when the bytes start with its byte
 * order mark (some spreadsheets export so). A byte order mark at the start is dropped, from text
 * chunks too. The mark is two bytes and a stream (an HTTP upload) may cut them apart, so the
 * encoding is chosen once two bytes are in, or at the end.
 *
 * @example
 * for await (const text of decodeText(createReadStream('optouts.csv'))) parser.write(text);
 */
export async function* decodeText(
  source: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<string> {
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  let head: Uint8Array | undefined;
  let first = true;
  const decoderFor = (bytes: Uint8Array) => {
    decoder ??= new TextDecoder(
      bytes[0] === 0xff && bytes[1] === 0xfe
        ? 'utf-16le'
        : bytes[0] === 0xfe && bytes[1] === 0xff
          ? 'utf-16be'
          : 'utf-8',
    );
    return decoder;
  };
  // TextDecoder drops the mark from bytes; text chunks may still carry it.
  const withoutMark = (text: string) => {
    if (!first || text.length === 0) return text;
    first = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  };
  for await (const read of source) {
    let chunk = read;
    if (typeof chunk !== 'string' && decoder === undefined) {
      chunk = head ? Buffer.concat([head, chunk]) : chunk;
      head = undefined;
      if (chunk.length < 2) {
        head = chunk;
        continue;
      }
    }
    for (let at = 0; at < chunk.length; at += pieceSize) {
      const end = at + pieceSize;
      const text =
        typeof chunk === 'string'
          ? chunk.slice(at, end)
          : decoderFor(chunk).decode(chunk.subarray(at, end), { stream: true });
      const piece = withoutMark(text);
      if (piece !== '') yield piece;
    }
  }
  // A file of one byte: too short for a mark, read as UTF-8.
  const rest = withoutMark(
    (head ? decoderFor(head).decode(head, { stream: true }) : '') + (decoder?.decode() ?? ''),
  );
  if (rest !== '') yield rest;
}

/**
 * Splits a file's stream into its lines, numbered from 1, in batches of at most 128 (yielding
 * each line alone would cost an await per line: a million for a million rows). Bytes are read
 * as `decodeText` reads them (UTF-8, or UTF-16 after its byte order mark; a mark at the start
 * dropped). A line longer than `maxLength` characters comes with no text, and only its number is
 * kept while it lasts.
 *
 * @example
 * for await (const lines of readLines(createReadStream('recipients.csv'))) {
 *   for (const { number, text } of lines) console.log(number, text);
 * }
 */
export async function* readLines(
  source: AsyncIterable<Uint8Array | string>,
  maxLength = defaultMaxLineLength,
): AsyncGenerator<TextLine[]> {
  let partial = '';
  let tooLong = false;
  let number = 0;
  const take = (text: string, lines: TextLine[], final: boolean) => {
    let from = 0;
    for (let end = text.indexOf('\n', from); end !== -1; end = text.indexOf('\n', from)) {
      number++;
      const long = tooLong || partial.length + (end - from) > maxLength;
      lines.push({ number, text: long ? undefined : withoutCr(partial + text.slice(from, end)) });
      partial = '';
      tooLong = false;
      from = end + 1;
    }
    if (!tooLong) {
      if (partial.length + (text.length - from) > maxLength) {
        tooLong = true;
        partial = '';
      } else {
        partial += text.slice(from);
      }
    }
    if (final && (partial !== '' || tooLong)) {
      number++;
      lines.push({ number, text: tooLong ? undefined : withoutCr(partial) });
    }
  };
  for await (const text of decodeText(source)) {
    const lines: TextLine[] = [];
    take(text, lines, false);
    if (lines.length <= batchLines) {
      if (lines.length > 0) yield lines;
    } else {
      for (let i = 0; i < lines.length; i += batchLines) yield lines.slice(i, i + batchLines);
    }
  }
  const lines: TextLine[] = [];
  take('', lines, true);
  if (lines.length > 0) yield lines;
}

function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
