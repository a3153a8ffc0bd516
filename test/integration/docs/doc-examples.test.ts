import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { extractBlocks } from './extract-blocks.ts';
import { runDoc } from './run-doc.ts';

/**
 * Every command and request the README and docs/*.md show is run here, as their reader would run
 * it, and must still do what the doc shows (docs/writing-docs.md says how a block is marked).
 * One terminal session per file, its blocks in order; the files at once, each on its own ports
 * and Redis key prefix.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const docs = [
  'README.md',
  ...readdirSync(`${root}docs`)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

describe('the docs', () => {
  it('mark every shell block they do not run as skipped, with a reason', () => {
    const problems = docs.flatMap(
      (file) => extractBlocks(readFileSync(`${root}${file}`, 'utf8'), file).problems,
    );
    expect(problems).toEqual([]);
  });

  const runnable = docs.filter((file) =>
    extractBlocks(readFileSync(`${root}${file}`, 'utf8'), file).blocks.some(
      (block) => !block.directives.some((d) => d.kind === 'skip'),
    ),
  );

  describe.concurrent('run as written', () => {
    it.each(runnable)('%s', { timeout: 900_000 }, async (file) => {
      const report = await runDoc({
        root,
        file,
        redisUrl: testRedisUrl(),
        prefix: randomPrefix('doc'),
      });
      console.log(
        `${file}: ${report.commands} commands, ${report.skippedBlocks} blocks skipped, ${report.seconds.toFixed(1)} s`,
      );
      if (report.failures.length > 0) throw new Error(`\n${report.failures.join('\n\n')}\n`);
    });
  });
});
