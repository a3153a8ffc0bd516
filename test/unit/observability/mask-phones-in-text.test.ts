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

  it('masks a number written in groups: spaces, dots, dashes, parentheses, a leading + or 00', () => {
    const written: [string, string][] = [
      ['06 12 34 56 78', '061••••678'],
      ['06.12.34.56.78', '061••••678'],
      ['06-12-34-56-78', '061••••678'],
      ['06\u00A012\u00A034\u00A056\u00A078', '061••••678'],
      ['+33 6 12 34 56 78', '+336•••••678'],
      ['+33 (0)6 12 34 56 78', '+330••••••678'],
      ['+33 612345678', '+336•••••678'],
      ['0033 6 12 34 56 78', '003•••••••678'],
      ['+1 (201) 555-0123', '+120•••••123'],
      ['(201) 555-0123', '201••••123'],
      ['201.555.0123', '201••••123'],
      ['1-800-555-0123', '180•••••123'],
      ['+44 20 7946 0958', '+442••••••958'],
      ['07700 900123', '077•••••123'],
      ['+49 30 12345678', '+493••••••678'],
      ['612 345 678', '612•••678'],
      ['+91 98765 43210', '+919••••••210'],
      ['090-1234-5678', '090•••••678'],
      ['(11) 91234-5678', '119•••••678'],
    ];
    for (const [number, masked] of written) {
      expect(maskPhonesInText(`"from":"${number}"`)).toBe(`"from":"${masked}"`);
      expect(maskPhonesInText(`call ${number}.`)).toBe(`call ${masked}.`);
    }
    expect(maskPhonesInText('(06 12 34 56 78)')).toBe('(061••••678)');
    expect(maskPhonesInText('2024-11-23 06 12 34 56 78')).toBe('2024-11-23 061••••678');
    expect(maskPhonesInText('ouvert 09.00-12.30, 06.12.34.56.78')).toBe(
      'ouvert 09.00-12.30, 061••••678',
    );
  });

  it('leaves dates, times, ISO timestamps, ids, prices and addresses as written', () => {
    for (const text of [
      'at 2024-11-23T12:34:56.789Z',
      'on 2024-11-23 12:34:56',
      'le 23.11.2024 à 14:00',
      '12:34 2024-11-23',
      'from 2010-2024',
      'open 09.00-12.30',
      'id 1732380000000-0',
      'run campaign-2024-11-23-01',
      'v1.2.3 on 192.168.100.200:6379',
      '1 234 567.89',
      '612 345 678.50',
      '€ 23 456 789',
      '23 456 789 €',
      '$1,234,567.89',
      'pi 3.14159265, p 0.234567891',
      'count 12 345 678',
      '2 3 4 5 6 7 8 9',
    ]) {
      expect(maskPhonesInText(text)).toBe(text);
    }
  });

  it("leaves a hex hash's digits alone (a bot's version), not a number glued to other letters", () => {
    for (const text of [
      'snapshot of version eb64251454d9, bot is now f4a217ea6bfc',
      'commit 3a12345678e9b0c1d2e3f4a5b6c7d8e9f0a1b2c3',
      'sha E9B64251454D9A',
      'a 0c33612345678f',
    ]) {
      expect(maskPhonesInText(text)).toBe(text);
    }
    expect(maskPhonesInText('tel33612345678')).toBe('tel336•••••678');
    expect(maskPhonesInText('ab33612345678')).toBe('ab336•••••678');
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

  it('masks numbers written in groups, a refused body quoted in a message included', () => {
    const line = JSON.stringify({
      time: 1732380000000,
      at: '2024-11-23T12:34:56.789Z',
      msg: 'body is not JSON: "{\\"from\\":\\"+1 (201) 555-0123\\",\\"to\\":\\"06 12 34 56 78\\"}"',
    });
    expect(JSON.parse(maskPhonesInJsonLine(line))).toEqual({
      time: 1732380000000,
      at: '2024-11-23T12:34:56.789Z',
      msg: 'body is not JSON: "{\\"from\\":\\"+120•••••123\\",\\"to\\":\\"061••••678\\"}"',
    });
    expect(maskPhonesInJsonLine('{"from":"06\u00A012\u00A034\u00A056\u00A078"}')).toBe(
      '{"from":"061••••678"}',
    );
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
        { err: error, reason: 'item 0: from 33699999999 is not a mobile', to: '06 12 34 56 79' },
        'send failed for good for 33688888888, then +1 (201) 555-0123',
      );
    const text = lines.join('');
    for (const full of ['33140000002', '33612345678', '33699999999', '33688888888']) {
      expect(text).not.toContain(full);
    }
    expect(text).not.toContain('06 12 34 56 79');
    expect(text).not.toContain('555-0123');
    const line = JSON.parse(lines[0]!);
    expect(line.err.message).toContain("'331•••••002' is a landline number");
    expect(line.conversation).toBe('paris:336•••••678');
    expect(line.msg).toBe('send failed for good for 336•••••888, then +120•••••123');
    expect(line.to).toBe('061••••679');
  });
});
