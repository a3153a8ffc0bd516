import { describe, expect, it } from 'vitest';
import { statePath } from '../../../src/conversation/state-path.ts';
import { parseTranscript, TranscriptSyntaxError } from '../../../src/testing/parse-transcript.ts';

function problemsOf(source: string): string[] {
  try {
    parseTranscript(source, 'x.transcript');
  } catch (error) {
    if (error instanceof TranscriptSyntaxError) return error.problems;
    throw error;
  }
  throw new Error('parsed without a problem');
}

describe('parseTranscript', () => {
  it('reads every kind of line, skipping comments and blank lines', () => {
    const transcript = parseTranscript(
      [
        '# comment',
        '@phone +33 6 12 34 56 78',
        '@now 2026-12-01T09:00:00+01:00',
        '',
        '@start appointment {"name":"Ana","at":"2026-12-02T10:00"}',
        '> oui',
        '< Merci Ana, à demain.',
        '< /^merci/i',
        '@advance 24h',
        '@fail-next-delivery EXPIRED',
        '@state booking.asking',
        '  @state ended  ',
        '@result {"score":9,"comment":"Non, lent"}',
        '@contact {"contactSubscribed":true}',
        '@contact none',
      ].join('\n'),
      'x.transcript',
    );
    expect(transcript.now).toBe(Date.parse('2026-12-01T08:00:00Z'));
    expect(transcript.steps).toEqual([
      { line: 2, kind: 'phone', phone: '33612345678' },
      {
        line: 5,
        kind: 'start',
        bot: 'appointment',
        input: { name: 'Ana', at: '2026-12-02T10:00' },
      },
      { line: 6, kind: 'send', text: 'oui' },
      { line: 7, kind: 'expect', expected: { kind: 'exact', text: 'Merci Ana, à demain.' } },
      { line: 8, kind: 'expect', expected: { kind: 'regex', regex: /^merci/i } },
      { line: 9, kind: 'advance', by: '24h', ms: 86_400_000 },
      { line: 10, kind: 'fail-next-delivery', reason: 'EXPIRED' },
      { line: 11, kind: 'state', state: 'booking.asking' },
      { line: 12, kind: 'state', state: 'ended' },
      { line: 13, kind: 'result', fields: { score: 9, comment: 'Non, lent' } },
      { line: 14, kind: 'contact', fields: { contactSubscribed: true } },
      { line: 15, kind: 'contact', fields: null },
    ]);
  });

  it('starts a bot with empty input when no JSON follows, and keeps the clock unset without @now', () => {
    const transcript = parseTranscript('@start survey\n< /./', 'x.transcript');
    expect(transcript.now).toBeUndefined();
    expect(transcript.steps[0]).toEqual({ line: 1, kind: 'start', bot: 'survey', input: {} });
  });

  it('continues a message on `|` lines', () => {
    const transcript = parseTranscript('< Line one\n| line two\n> a\n| b', 'x.transcript');
    expect(transcript.steps).toEqual([
      { line: 1, kind: 'expect', expected: { kind: 'exact', text: 'Line one\nline two' } },
      { line: 3, kind: 'send', text: 'a\nb' },
    ]);
  });

  it('reports every problem at once, each with file:line and what to do', () => {
    const problems = problemsOf(
      [
        '@now tomorrow',
        '@start appointment {name: Ana}',
        'hello',
        '@advance soon',
        '@phone 12',
        '@wait 2h',
        '< /[/',
        '>',
        '@state',
        '| orphan',
        '@result [1]',
        '@result {score',
      ].join('\n'),
    );
    expect(problems).toHaveLength(12);
    expect(problems[0]).toBe('x.transcript:1: @now tomorrow is not an ISO date-time');
    expect(problems[1]).toMatch(/^x\.transcript:2: @start appointment: the input is not JSON/);
    expect(problems[2]).toMatch(
      /^x\.transcript:3: cannot read "hello": a line starts with >, <, \|, @ or #/,
    );
    expect(problems[3]).toBe(
      'x.transcript:4: @advance soon is not a duration such as 24h, 90m or 3d',
    );
    expect(problems[4]).toMatch(/^x\.transcript:5: @phone 12: /);
    expect(problems[5]).toMatch(/^x\.transcript:6: unknown directive @wait: use @phone, @now/);
    expect(problems[6]).toMatch(/^x\.transcript:7: \/\[\/ is not a valid regular expression/);
    expect(problems[7]).toBe('x.transcript:8: `>` needs the text of the message');
    expect(problems[8]).toBe(
      'x.transcript:9: @state needs a state (a dotted path when nested), or `ended`',
    );
    expect(problems[9]).toBe(
      'x.transcript:10: a `|` line continues the `>` or `<` line just above it',
    );
    expect(problems[10]).toBe(
      'x.transcript:11: @result takes a JSON object of recorded fields, such as {"score":9}',
    );
    expect(problems[11]).toMatch(/^x\.transcript:12: @result: not JSON/);
  });

  it('refuses @now after the first step', () => {
    expect(problemsOf('@start a\n@now 2026-12-01T09:00:00Z')).toEqual([
      'x.transcript:2: @now sets the clock before the first step: move it above',
    ]);
  });
});

describe('statePath', () => {
  it('writes nested states as dotted paths and parallel regions sorted', () => {
    expect(statePath('asking')).toBe('asking');
    expect(statePath({ booking: 'date' })).toBe('booking.date');
    expect(statePath({ booking: { date: 'asking' } })).toBe('booking.date.asking');
    expect(statePath({ video: 'off', audio: { on: 'loud' } })).toBe('audio.on.loud, video.off');
  });
});
