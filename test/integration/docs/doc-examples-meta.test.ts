import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { extractBlocks } from './extract-blocks.ts';
import { matchOutput } from './match-output.ts';
import { runDoc } from './run-doc.ts';

/**
 * The doc test can fail: fixtures in test/fixtures/docs/ hold a doc that runs, and docs broken
 * the ways a real one drifts (an output, a start input the bot refuses, a refused request, a
 * block nobody marked).
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const run = (file: string) =>
  runDoc({
    root,
    file: `test/fixtures/docs/${file}`,
    redisUrl: testRedisUrl(),
    prefix: randomPrefix('doc-meta'),
  });

// Each run starts a shell and `replyflow` processes: minutes on a loaded machine.
describe.concurrent('the doc test', { timeout: 300_000 }, () => {
  it('passes a doc whose examples run: files it shows, ids bound, …, echo $?, markers', async () => {
    const report = await run('runs.md');
    expect(report.failures).toEqual([]);
    expect(report.commands).toBe(9);
    expect(report.skippedBlocks).toBe(1);
  });

  it('fails a doc whose output drifted, naming the file, the line and the line that differs', async () => {
    const report = await run('drifted-output.md');
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]).toContain('test/fixtures/docs/drifted-output.md:4: $ echo');
    expect(report.failures[0]).toContain('output differs, line 1:');
    expect(report.failures[0]).toContain(
      "actual: 'to' 33123456789 is not a mobile phone number with its country prefix",
    );
  });

  it("fails a doc whose start input the bot's schema refuses (exit status 1)", async () => {
    const report = await run('drifted-input.md');
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]).toMatch(/drifted-input\.md:6: \$ printf .*\n {2}exit status 1/);
    expect(report.failures[0]).toContain('input.at');
  });

  it('fails a request answered 4xx when the doc does not show that status', async () => {
    const report = await run('refused-request.md');
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]).toContain(
      'refused-request.md:5: $ curl -s localhost:4010/v1/groups',
    );
    expect(report.failures[0]).toContain('curl got HTTP 401 (the doc shows no such status)');
  });

  it('fails a block that is neither runnable nor marked skip, a skip without a reason, an unknown marker', () => {
    const file = 'test/fixtures/docs/unmarked.md';
    const { problems } = extractBlocks(readFileSync(`${root}${file}`, 'utf8'), file);
    expect(problems).toEqual([
      `${file}:5: a console block with no '$ ' command: show the command, or mark it <!-- doc-test: skip: REASON --> (a log excerpt, say)`,
      `${file}:12: 'skip' needs a reason: <!-- doc-test: skip: why it cannot run -->`,
      `${file}:19: unknown doc-test directive 'serve' (skip: REASON, dev, start, background, file PATH, env NAME=VALUE…, unset NAME…, unordered, eventually, session NAME)`,
    ]);
  });
});

describe('matchOutput', () => {
  const none = new Map<string, string>();
  const now = new Date('2026-11-28T00:00:00Z');

  it('compares exactly but for the volatile parts', () => {
    expect(matchOutput('status  delivered', 'status  pending', none).ok).toBe(false);
    expect(matchOutput('a\nb', 'a\nb\nc', none).ok).toBe(false);
    expect(
      matchOutput(
        '[19:21:27.882] WARN: at 2026-11-21T10:05:40.789Z, version cf87c01dfc20',
        '[00:01:02.003] WARN: at 2026-11-28T00:34:05.508Z, version 0123456789ab',
        none,
        { now },
      ).ok,
    ).toBe(true);
  });

  it("compares a later year's date exactly: an input's date, not a creation time", () => {
    const doc = 'first send  2027-12-07T09:00:00.000Z';
    expect(matchOutput(doc, 'first send  2027-12-07T09:00:00.000Z', none, { now }).ok).toBe(true);
    expect(matchOutput(doc, 'first send  2027-12-07T10:00:00.000Z', none, { now }).ok).toBe(false);
  });

  it('binds a UUID and holds the same one to it later in the output', () => {
    const doc =
      'id 949c402e-576e-4bb5-9080-0d3cd60bf3e1\nagain 949c402e-576e-4bb5-9080-0d3cd60bf3e1';
    const real = 'd324bcc9-0f80-411b-8581-5d7769f305d9';
    const other = '11111111-0f80-411b-8581-5d7769f305d9';
    const match = matchOutput(doc, `id ${real}\nagain ${real}`, none);
    expect(match.ok).toBe(true);
    expect(match.bound.get('949c402e-576e-4bb5-9080-0d3cd60bf3e1')).toBe(real);
    expect(matchOutput(doc, `id ${real}\nagain ${other}`, none).ok).toBe(false);
  });

  it('takes … for any text in a line, and any lines on a line of its own', () => {
    expect(matchOutput('rows  7\n…\ndone', 'rows  7\na\nb\ndone', none).ok).toBe(true);
    expect(matchOutput('{"id":"k…:0","ok":true}', '{"id":"k12ab:0","ok":true}', none).ok).toBe(
      true,
    );
    expect(matchOutput('rows  7\n…\ndone', 'rows  8\ndone', none).ok).toBe(false);
  });

  it('takes the lines in any order when unordered, but each once', () => {
    expect(matchOutput('h\na\nb', 'h\nb\na', none, { unordered: true }).ok).toBe(true);
    expect(matchOutput('h\na\nb', 'h\na\na', none, { unordered: true }).ok).toBe(false);
  });
});
