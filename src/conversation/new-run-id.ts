import { randomBytes } from 'node:crypto';

/**
 * A new run id: 96 random bits as 16 base64url characters. Unique enough for run ids, which
 * only need to differ between runs (timer ids build on them), and 20 characters shorter than a
 * UUID in every record that names its run (the conversation, its results, its message records).
 */
export function newRunId(): string {
  return randomBytes(12).toString('base64url');
}
