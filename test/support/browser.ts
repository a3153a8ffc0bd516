import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Debian's chromium: the browser tests never download one. */
export const chromiumPath = '/usr/bin/chromium';

/** The flags every browser test launches chromium with (no network of its own). */
export const chromiumArgs = ['--headless', '--no-sandbox', '--disable-background-networking'];

/**
 * Whether the browser tests run. Without chromium they are skipped with a loud notice, unless
 * `REPLYFLOW_REQUIRE_BROWSER=1` (set by `.ci/run`), where a missing browser is a failure.
 */
export function browserAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  if (existsSync(chromiumPath)) return true;
  const notice = `${chromiumPath} is missing: the browser tests cannot run (apt-get install -y chromium)`;
  if (env.REPLYFLOW_REQUIRE_BROWSER === '1')
    throw new Error(`${notice}; REPLYFLOW_REQUIRE_BROWSER=1`);
  console.warn(`\n${'!'.repeat(78)}\n!! SKIPPED: ${notice}\n${'!'.repeat(78)}\n`);
  return false;
}

/**
 * Where a test writes the screenshot `name`: `docs/img/` when `UPDATE_SCREENSHOTS=1`, so the
 * tracked pictures change only when asked, otherwise a folder under the system's temp dir.
 */
export function screenshotPath(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir =
    env.UPDATE_SCREENSHOTS === '1' ? resolve('docs/img') : join(tmpdir(), 'replyflow-screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
