import type { Command } from 'commander';
import { ReplyflowError } from '../errors.ts';
import type { MessagingClient } from '../provider/messaging-client.ts';
import { ProviderError, ProviderRateLimitedError } from '../provider/provider-errors.ts';

/** What a client command prints: `json` with `--json`, `text` otherwise. */
export interface CommandOutput {
  json: unknown;
  text: string;
}

interface ClientCommandOptions {
  location?: string;
  json?: boolean;
}

/** Adds the options every command that talks to the service shares. */
export function withClientOptions(command: Command): Command {
  return command
    .option(
      '--location <name>',
      'the configured location whose key pair to use (default: the first)',
    )
    .option('--json', 'print machine-readable JSON');
}

/**
 * Wraps a command's work: opens the location's client, prints the result, closes the client.
 * An expected failure (any `ReplyflowError`) prints its code and message to stderr, as JSON with
 * `--json`, and exits 1 without a stack trace; anything else is a bug and keeps its stack.
 */
export function clientAction<Options extends object = object>(
  run: (
    client: MessagingClient,
    options: Options & ClientCommandOptions,
    args: string[],
  ) => Promise<CommandOutput>,
): (...args: unknown[]) => Promise<void> {
  return async (...actionArgs) => {
    // Commander calls an action with the declared arguments, then the options, then the command.
    const command = actionArgs[actionArgs.length - 1] as Command;
    const options = command.opts<Options & ClientCommandOptions>();
    const args = command.args;
    let client: MessagingClient | undefined;
    try {
      // Loaded here, so `--help` does not pay for the client's modules.
      const { openMessagingClient } = await import('./open-messaging-client.ts');
      client = await openMessagingClient({
        location: options.location,
        onWarning: (warning) =>
          process.stderr.write(`warning ${warning.code}: ${warning.message}\n`),
      });
      const output = await run(client, options, args);
      process.stdout.write(
        `${options.json ? JSON.stringify(output.json, null, 2) : output.text}\n`,
      );
    } catch (error) {
      if (!(error instanceof ReplyflowError)) throw error;
      process.stderr.write(
        options.json
          ? `${JSON.stringify({ error: describe(error) })}\n`
          : `error ${error.code}: ${error.message}\n`,
      );
      process.exitCode = 1;
    } finally {
      await client?.close();
    }
  };
}

function describe(error: ReplyflowError): Record<string, unknown> {
  return {
    code: error.code,
    message: error.message,
    ...('field' in error && error.field !== undefined ? { field: error.field } : {}),
    ...('status' in error && error.status !== undefined ? { status: error.status } : {}),
    ...(error instanceof ProviderError
      ? { mayHaveReachedService: error.mayHaveReachedService }
      : {}),
    ...(error instanceof ProviderRateLimitedError ? { retryAfterMs: error.retryAfterMs } : {}),
  };
}
