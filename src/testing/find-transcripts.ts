import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';

/**
 * The `*.transcript` files under each root (a file, or a folder searched recursively, skipping
 * `node_modules` and dot-folders), in the order of the roots and sorted within a folder, each
 * once, as paths relative to the working directory. A root
 * that does not exist is an error when `required` (files named on a command line), and is
 * skipped otherwise (default folders).
 *
 * @example
 * import { it } from 'vitest';
 * import { findTranscripts, runTranscript } from 'replyflow/testing';
 *
 * for (const file of await findTranscripts(['transcripts'])) {
 *   it(file, () => runTranscript(file));
 * }
 */
export async function findTranscripts(
  roots: readonly string[],
  options: { required?: boolean } = {},
): Promise<string[]> {
  const found = new Set<string>();
  for (const root of roots) {
    const files = await within(resolve(root), root, options.required ?? false);
    for (const file of files.sort()) {
      found.add(relative(process.cwd(), file) || file);
    }
  }
  return [...found];
}

async function within(path: string, shown: string, required: boolean): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) {
    if (required) throw new Error(`${shown} does not exist: name a transcript file or a folder`);
    return [];
  }
  if (info.isFile()) return [path];
  const files: string[] = [];
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) files.push(...(await within(child, child, false)));
    else if (entry.name.endsWith('.transcript')) files.push(child);
  }
  return files;
}
