import type { RunningReplyflow, StartOptions } from './start-replyflow.ts';

/**
 * `startReplyflow` as the package exports it: the server's modules (Express, the dashboard, the
 * metrics, the event delivery: about 30 MiB) load when a server starts, not when a bot file
 * imports `replyflow`, so a command that only loads bots (`campaigns create`, `bots lint`,
 * `test`) does not carry them.
 */
export async function startReplyflow(options: StartOptions): Promise<RunningReplyflow> {
  const { startReplyflow: start } = await import('./start-replyflow.ts');
  return start(options);
}
