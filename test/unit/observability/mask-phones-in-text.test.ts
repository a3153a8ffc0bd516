import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.ts';
import {
  maskPhonesInJsonLine,
  maskPhonesInText,
} from '../../../src/observability/mask-phones-in-text.ts';

describe('maskPhonesInText', () => {
  it('masks a number wherever it stands, keeping its first and last three digits', () => {
    expect(maskPhonesInText("'33140000002' is a landline number")).toBe(
      "'331•••••002' is a landline number",
    );
    expect(maskPhonesInText('to +33612345678 and 0612345678')).toBe(
      'to +336•••••678 and 061••••678',
    );
    expect(maskPhonesInText('id crash-33612000001-3:0')).toBe('id crash-336•••••001-3:0');
    expect(maskPhonesInText('from ٣٣٦١٢٣٤٥٦٧٨')).toBe('from ٣٣٦•••••٦٧٨');
    expect(maskPhonesInText('+12125551234 (North American)')).toBe('+121•••••234 (North American)');
  });

  it('leaves short numbers, long digit strings and Unix times alone', () => {
    for (const text of [
      'attempt 3 of 1234567',
      `token ${'1'.repeat(40)}`,
      'due 1732380000000 (ms)',
      'at 1732380000 (s)',
    ]) {
      expect(maskPhonesInText(text)).toBe(text);
    }
  });
});

describe('maskPhonesInJsonLine', () => {
  it('masks inside string values only: numbers stay numbers, and the line stays JSON', () => {
    const line = JSON.stringify({
      time: 1732380000000,
      big: 33612345678,
      msg: 'body is not JSON: "{\\"from\\":\\"33612345678\\"}"',
    });
    const masked = maskPhonesInJsonLine(line);
    expect(JSON.parse(masked)).toEqual({
      time: 1732380000000,
      big: 33612345678,
      msg: 'body is not JSON: "{\\"from\\":\\"336•••••678\\"}"',
    });
  });

  it('masks digits of other scripts too', () => {
    expect(maskPhonesInJsonLine('{"from":"٣٣٦١٢٣٤٥٦٧٨","n":1}')).toBe(
      '{"from":"٣٣٦•••••٦٧٨","n":1}',
    );
  });
});

describe('createLogger', () => {
  it('masks phone numbers in every field of every line, error messages, stacks and children included', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'debug', destination });
    const error = new Error("'33140000002' is a landline number", {
      cause: new Error('to 33612345678'),
    });
    logger
      .child({ conversation: 'paris:33612345678' })
      .error(
        { err: error, reason: 'item 0: from 33699999999 is not a mobile' },
        'send failed for good for 33688888888',
      );
    const text = lines.join('');
    for (const full of ['33140000002', '33612345678', '33699999999', '33688888888']) {
      expect(text).not.toContain(full);
    }
    const line = JSON.parse(lines[0]!);
    expect(line.err.message).toContain("'331•••••002' is a landline number");
    expect(line.conversation).toBe('paris:336•••••678');
    expect(line.msg).toBe('send failed for good for 336•••••888');
  });
});
