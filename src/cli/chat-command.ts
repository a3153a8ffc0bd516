import { createInterface } from 'node:readline';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { StoredSms } from '../emulator/index.ts';
import { ReplyflowError } from '../errors.ts';

interface ChatOptions {
  phone: string;
  input?: unknown;
  logLevel: string;
}

/**
 * `replyflow chat <bot>`: one conversation with a bot in the terminal, on the same embedded
 * wiring as `replyflow dev` (the engine, the emulator and the memory store, in one process).
 * Lines are read one at a time and each waits for the bot to settle, so it also runs through
 * a pipe: `printf 'oui\n/state\n' | replyflow chat appointment`.
 */
export function registerChatCommand(program: Command): void {
  program
    .command('chat')
    .description(
      'Chat with a bot in the terminal, on the embedded engine, emulator and memory store; reads a pipe too',
    )
    .argument('<bot>', 'id of the bot to start (a file in bots/)')
    .addOption(
      new Option(
        '--phone <number>',
        "the person's number (national numbers read as French)",
      ).default('+33612345678'),
    )
    .addOption(new Option('--input <json>', 'start input of the bot, as JSON').argParser(json))
    .addOption(new Option('--log-level <level>', 'pino log level, on stderr').default('warn'))
    .addHelpText(
      'after',
      `
Commands inside the chat:
  /advance <duration>   move the clock ahead (30m, 24h, 7d); due timers fire
  /state                the conversation's bot, version, status and state
  /context              the machine's context, as JSON
  /fail <reason>        the next SMS fails: EXPIRED, invalid_phone_number or insufficient_balance
  /stop                 send STOP
  /quit                 leave (end of input does the same)
Any other line is sent to the bot as the person's reply.`,
    )
    .action((bot: string, options: ChatOptions) => runChat(bot, options));
}

function json(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`not JSON (${(error as Error).message})`);
  }
}

async function runChat(botId: string, options: ChatOptions): Promise<void> {
  try {
    await chat(botId, options);
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow chat: ${error.code}: ${error.message}\n`);
    process.exit(1);
  }
}

async function chat(botId: string, options: ChatOptions): Promise<void> {
  // Loaded here, so `replyflow --help` does not pay for the server's modules.
  const [{ loadConfig }, { startDev }, { useColor }, { createLogger }, { normalizePhone }] =
    await Promise.all([
      import('../app/config.ts'),
      import('../app/start-dev.ts'),
      import('../app/use-color.ts'),
      import('../observability/logger.ts'),
      import('../provider/normalize-phone.ts'),
    ]);
  const [{ createChatSession }, { createChatPrinter }, { runChatLine }, { formatStateValue }] =
    await Promise.all([
      import('./chat-session.ts'),
      import('./chat-printer.ts'),
      import('./run-chat-line.ts'),
      import('../app/format-state-value.ts'),
    ]);
  const phone = normalizePhone(options.phone, { defaultCountry: 'FR' });
  const config = { ...(await loadConfig(process.env)), port: 0 };
  const logger = createLogger({
    level: options.logLevel,
    pretty: { colorize: useColor(process.stderr) },
    destination: process.stderr,
  });
  const print = createChatPrinter(process.stdout, useColor(process.stdout));
  const dev = await startDev(config, logger, {
    embedded: true,
    watch: false,
    onStep(outcome, claim) {
      if (claim.phone !== phone) return;
      if (outcome.route === 'compliance') {
        const ended = outcome.ended ? `; ${outcome.ended.botId} ended: ${outcome.ended.code}` : '';
        print.info(`compliance: ${outcome.reason}, answered before any bot${ended}`);
        return;
      }
      if (!outcome.botId) return;
      const from = formatStateValue(outcome.stateBefore, '(start)');
      const to = formatStateValue(outcome.stateAfter, '(none)');
      if (outcome.error) print.error(`the bot threw: ${String(outcome.error)}`);
      else if (outcome.reason !== 'status' || from !== to) print.state(outcome.botId, from, to);
    },
  });
  if (!dev.registry.bots.has(botId)) {
    await dev.close();
    process.stderr.write(
      `replyflow chat: no bot '${botId}' in ${dev.botsDir}; loaded: ${[...dev.registry.bots.keys()].join(', ') || '(none)'}\n`,
    );
    process.exit(1);
  }
  const session = createChatSession(dev, phone);
  // Each SMS to the person once, then its final status (delivered, or errored with the reason).
  const seen = new Map<string, string>();
  const showMessages = () => {
    for (const sms of dev.emulator!.context.messages.list({ to: phone }) as StoredSms[]) {
      const known = seen.get(sms.id);
      if (known === undefined) print.sms(sms);
      else if (known !== sms.status && (sms.status === 'delivered' || sms.status === 'errored'))
        print.status(sms);
      seen.set(sms.id, sms.status);
    }
  };
  const watcher = setInterval(showMessages, 20);
  const settle = async () => {
    await session.settle();
    showMessages();
  };

  print.banner(botId, phone);
  await session.start(botId, options.input);
  await settle();
  const lines = createInterface({ input: process.stdin, terminal: process.stdin.isTTY === true });
  const prompt = () => {
    if (process.stdin.isTTY) process.stdout.write('you ▸ ');
  };
  prompt();
  for await (const line of lines) {
    const result = await runChatLine(line, { session, print, dev, piped: !process.stdin.isTTY });
    if (result === 'quit') break;
    await settle();
    prompt();
  }
  lines.close();
  clearInterval(watcher);
  await dev.close();
  process.exit(0);
}
