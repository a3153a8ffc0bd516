// The machine's part of a turn: XState's pure `transition()` / `initialTransition()` against
// replyflow's `pureTransition` / `pureInitialTransition`, which keep one inert actor per machine
// instead of building one per call. For the bench's echo bot and the reference survey.
//   npm run bench -- step [--calls 20000] [--runs 5]
import { parseArgs } from 'node:util';
import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  initialTransition,
  transition,
} from 'xstate';
import survey from '../../bots/survey.ts';
import { pureInitialTransition, pureTransition } from '../../src/conversation/pure-transition.ts';
import type { Benchmark } from '../lib/benchmark.ts';
import { median } from '../lib/stats.ts';
import { echoMachine } from '../reply-loop/echo-bot.ts';

const benchmark: Benchmark = {
  name: 'step',
  description:
    "a machine's turn: XState's transition()/initialTransition() vs replyflow's pureTransition (one inert actor kept per machine)",
  run,
};
export default benchmark;

interface Case {
  name: string;
  theirs: () => unknown;
  ours: () => unknown;
}

async function run(args: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      calls: { type: 'string', default: '20000' },
      runs: { type: 'string', default: '5' },
    },
  });
  const calls = Number(values.calls);
  const runs = Number(values.runs);
  if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(runs) || runs < 1) {
    throw new Error('step [--calls 20000] [--runs 5]: both must be positive integers');
  }
  const now = new Date().toISOString();
  const reply = {
    type: 'sms.reply',
    body: '7',
    from: '33612345678',
    receivedAt: now,
    originSmsId: 's',
  };
  const start = { type: 'conversation.start', input: {}, receivedAt: now };
  const input = { location: 'bench', phone: '33612345678', input: {} };
  const [echo] = initialTransition(echoMachine, input as never);
  const surveyMachine = survey.machine as AnyStateMachine;
  const [asked] = transition(surveyMachine, initialTransition(surveyMachine, input)[0], start);
  const cases: Case[] = [
    {
      name: 'echo bot, a reply',
      theirs: () => transition(echoMachine, echo, reply as never),
      ours: () => pureTransition(echoMachine, echo, reply),
    },
    {
      name: 'survey, a start',
      theirs: () => transition(surveyMachine, initialTransition(surveyMachine, input)[0], start),
      ours: () =>
        pureTransition(surveyMachine, pureInitialTransition(surveyMachine, input)[0], start),
    },
    {
      name: 'survey, a reply',
      theirs: () => transition(surveyMachine, asked as AnyMachineSnapshot, reply),
      ours: () => pureTransition(surveyMachine, asked as AnyMachineSnapshot, reply),
    },
  ];
  console.log(
    `${calls} calls per measure after ${Math.ceil(calls / 5)} of warm-up, median of ${runs} runs (µs per call)`,
  );
  console.log('| case | transition() | pureTransition | ratio |');
  console.log('| --- | --- | --- | --- |');
  for (const { name, theirs, ours } of cases) {
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < runs; r++) {
      // Alternating which goes first, so a drift of the machine favours neither.
      if (r % 2 === 0) {
        a.push(measure(theirs, calls));
        b.push(measure(ours, calls));
      } else {
        b.push(measure(ours, calls));
        a.push(measure(theirs, calls));
      }
    }
    const [x, y] = [median(a), median(b)];
    console.log(`| ${name} | ${x.toFixed(1)} | ${y.toFixed(1)} | ${(y / x).toFixed(2)} |`);
  }
}

function measure(fn: () => unknown, calls: number): number {
  for (let i = 0; i < Math.ceil(calls / 5); i++) fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - started) / calls / 1000;
}
