import { formatStateValue } from '../app/format-state-value.ts';
import type { RunningDev } from '../app/start-dev.ts';
import { parseDuration } from '../bot/parse-duration.ts';
import type { ChatPrinter } from './chat-printer.ts';
import { type ChatSession, type FailReason, failReasons } from './chat-session.ts';

interface ChatLineDeps {
  session: ChatSession;
  print: ChatPrinter;
  dev: RunningDev;
  /** Input from a pipe: the person's lines are echoed, as no terminal shows them. */
  piped: boolean;
}

const help = [
  '/advance <duration>  move the clock ahead (30m, 24h, 7d); due timers fire',
  '/state               bot, version, status and state',
  '/context             the machine context, as JSON',
  `/fail <reason>       the next SMS fails: ${failReasons.join(', ')}`,
  '/stop                send STOP',
  '/quit                leave',
];

/** One line of `replyflow chat`: a command (`/state`…) or the person's reply. Never throws on input. */
export async function runChatLine(line: string, deps: ChatLineDeps): Promise<'quit' | undefined> {
  const { session, print } = deps;
  const text = line.trim();
  if (text === '') return undefined;
  if (!text.startsWith('/')) return send(text, deps);
  const [command = '', ...args] = text.slice(1).split(/\s+/);
  switch (command) {
    case 'quit':
    case 'exit':
      return 'quit';
    case 'stop':
      return send('STOP', deps);
    case 'advance': {
      const ms = parseDuration(args.join(''));
      if (ms === undefined) {
        print.error('/advance needs a duration such as 30m, 24h or 7d');
        return undefined;
      }
      session.advance(ms);
      const hours = Math.round(deps.dev.clock.offset() / 360_000) / 10;
      print.info(
        `clock moved ${args.join('')} ahead (now ${new Date(deps.dev.clock.now()).toISOString()}, ${hours} h ahead of real time)`,
      );
      return undefined;
    }
    case 'fail': {
      const wanted = args[0] ?? '';
      const reason = failReasons.find((name) => name.toLowerCase() === wanted.toLowerCase()) as
        | FailReason
        | undefined;
      if (!reason) {
        print.error(`/fail needs a reason: ${failReasons.join(', ')}`);
        return undefined;
      }
      session.fail(reason);
      print.info(`the next SMS to this number fails with ${reason}`);
      return undefined;
    }
    case 'state':
    case 'context': {
      const record = await session.conversation();
      if (!record) {
        print.info('no conversation yet');
        return undefined;
      }
      const snapshot = record.snapshot as { value?: unknown; context?: unknown } | null;
      if (command === 'context') print.json('context', snapshot?.context ?? null);
      else {
        const ended = record.endedReason ? `, ended: ${record.endedReason}` : '';
        print.info(
          `state: ${formatStateValue(snapshot?.value)} (bot ${record.botId}, version ${record.botVersion}, ${record.status}${ended})`,
        );
      }
      return undefined;
    }
    case 'help':
      for (const entry of help) print.info(entry);
      return undefined;
    default:
      print.error(`unknown command /${command}; /help lists them`);
      return undefined;
  }
}

function send(body: string, { session, print, piped }: ChatLineDeps): undefined {
  if (piped) print.you(body);
  const sent = session.send(body);
  if (!sent.ok) print.error(`not delivered to the bot: ${sent.reason}`);
  return undefined;
}
