import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
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
        "the person's number (national numbers read in REPLYFLOW_DEFAULT_COUNTRY, else as French)",
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
  const [
    { createChatSession },
    { createChatPrinter },
    { runChatLine },
    { formatStateValue },
    { checkStartInput },
    { exampleInputAt },
  ] = await Promise.all([
    import('./chat-session.ts'),
    import('./chat-printer.ts'),
    import('./run-chat-line.ts'),
    import('../app/format-state-value.ts'),
    import('../conversation/check-start-input.ts'),
    import('../bot/define-bot.ts'),
  ]);
  const config = { ...(await loadConfig(process.env)), port: 0 };
  const phone = normalizePhone(options.phone, {
    defaultCountry: (config.defaultCountry ?? 'FR') as 'FR',
  });
  const logger = createLogger({
    level: options.logLevel,
    pretty: { colorize: useColor(process.stderr) },
    destination: process.stderr,
  });
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  // In a terminal readline echoes and edits the line being typed (it needs the output for
  // that); what the bot prints meanwhile goes above the line, which is drawn again after it.
  const lines = createInterface({
    input: process.stdin,
    ...(tty && { output: process.stdout, prompt: 'you ▸ ' }),
    terminal: tty,
  });
  // Taken now, so that lines piped in while the engine starts wait here rather than get lost.
  const typed = lines[Symbol.asyncIterator]();
  const out = tty ? aboveThePrompt(lines) : process.stdout;
  const print = createChatPrinter(out, useColor(process.stdout));
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
  const bot = dev.registry.bots.get(botId);
  if (!bot) {
    await dev.close();
    process.stderr.write(
      `replyflow chat: no bot '${botId}' in ${dev.botsDir}; loaded: ${[...dev.registry.bots.keys()].join(', ') || '(none)'}\n`,
    );
    process.exit(1);
  }
  // The input is checked as the admin API checks it: a bot never starts on an input it refuses.
  const checked = checkStartInput(bot, options.input);
  if (!checked.ok) {
    await dev.close();
    const example =
      bot.exampleInput === undefined
        ? ''
        : `; for example: --input '${JSON.stringify(exampleInputAt(bot, new Date(dev.clock.now())))}'`;
    process.stderr.write(`replyflow chat: ${checked.error}${example}\n`);
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
  await session.start(botId, checked.input);
  await settle();
  const prompt = () => {
    if (tty) lines.prompt();
  };
  prompt();
  for (let next = await typed.next(); !next.done; next = await typed.next()) {
    const line = next.value;
    const result = await runChatLine(line, { session, print, dev, piped: !tty });
    if (result === 'quit') break;
    await settle();
    prompt();
  }
  lines.close();
  clearInterval(watcher);
  await dev.close();
  process.exit(0);
}

/**
 * A stream for the chat's own output in a terminal: each write goes above the line being typed,
 * which readline draws again below it, so a message that arrives while the person types never
 * splits their line.
 */
function aboveThePrompt(lines: Interface): NodeJS.WritableStream {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      clearLine(process.stdout, 0);
      cursorTo(process.stdout, 0);
      process.stdout.write(chunk);
      if (String(chunk).endsWith('\n')) lines.prompt(true);
      done();
    },
  });
}
