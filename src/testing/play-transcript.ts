import {
  defaultTranscriptPhone,
  type ExpectedText,
  type Transcript,
  type TranscriptStep,
} from './parse-transcript.ts';
import type { TestHarness } from './test-harness.ts';

/** Why a transcript failed: the line, and what was expected and what came. */
export interface TranscriptFailure {
  file: string;
  line: number;
  /** `file:line: what went wrong`, with the expected and actual text. */
  message: string;
  expected?: string;
  actual?: string;
}

/** The outcome of one transcript. */
export type TranscriptOutcome =
  | { file: string; passed: true; steps: number }
  | { file: string; passed: false; steps: number; failure: TranscriptFailure };

class Failed extends Error {
  constructor(readonly failure: TranscriptFailure) {
    super(failure.message);
  }
}

/**
 * Plays a parsed transcript on a harness (whose clock is already at `@now`). After each step
 * the engine is idle; each `<` line takes the next SMS the bot sent to the current phone, and
 * every SMS must be taken before the next `>` or `@` line, or the end of the file.
 *
 * @example
 * const transcript = parseTranscript(await readFile(path, 'utf8'), path);
 * const harness = await createTestHarness({ bots: [appointment], now: transcript.now });
 * const outcome = await playTranscript(harness, transcript);
 * if (!outcome.passed) console.error(outcome.failure.message); // file:line: expected …, got …
 * await harness.close();
 */
export async function playTranscript(
  harness: TestHarness,
  transcript: Transcript,
): Promise<TranscriptOutcome> {
  const { file } = transcript;
  let phone = harness.phone(defaultTranscriptPhone);
  /** Per phone number: how many of its messages `<` lines have taken. */
  const taken = new Map<string, number>();
  const fail = (line: number, message: string, extra: Partial<TranscriptFailure> = {}) => {
    throw new Failed({ file, line, message: `${file}:${line}: ${message}`, ...extra });
  };
  const allTaken = async (line: number, where: string) => {
    for (const [number, count] of taken) {
      const messages = await harness.phone(number).messages();
      const extra = messages[count];
      if (extra) {
        fail(line, `unexpected message from the bot ${where}: "${extra.body}"`, {
          actual: extra.body,
        });
      }
    }
  };
  let done = 0;
  try {
    for (const step of transcript.steps) {
      if (step.kind !== 'expect') await allTaken(step.line, `before line ${step.line}`);
      if (step.kind === 'phone') phone = harness.phone(step.phone);
      if (!taken.has(phone.number)) taken.set(phone.number, 0);
      await play(step);
      done++;
    }
    const end = transcript.steps.at(-1)?.line ?? 0;
    await allTaken(end, 'at the end of the transcript');
    return { file, passed: true, steps: done };
  } catch (error) {
    if (error instanceof Failed)
      return { file, passed: false, steps: done, failure: error.failure };
    const line = transcript.steps[done]?.line ?? 0;
    return {
      file,
      passed: false,
      steps: done,
      failure: { file, line, message: `${file}:${line}: ${(error as Error).message}` },
    };
  }

  async function play(step: TranscriptStep): Promise<void> {
    switch (step.kind) {
      case 'phone':
        return;
      case 'start':
        return harness.start(step.bot, phone, step.input);
      case 'send':
        return phone.send(step.text);
      case 'advance':
        return harness.advance(step.ms);
      case 'fail-next-delivery':
        return harness.failNextDelivery(phone, step.reason);
      case 'state': {
        const state = await phone.state();
        if (state !== step.state) {
          fail(step.line, `expected the state ${step.state}, got ${state ?? 'no conversation'}`, {
            expected: step.state,
            actual: state,
          });
        }
        return;
      }
      case 'result': {
        const fields = (await phone.result())?.fields ?? {};
        for (const [name, value] of Object.entries(step.fields)) {
          const wanted = JSON.stringify(value);
          const got = name in fields ? JSON.stringify(fields[name]) : undefined;
          if (got !== wanted) {
            fail(
              step.line,
              `expected the result to record ${name} = ${wanted}, got ${got ?? 'nothing'}`,
              { expected: wanted, ...(got !== undefined && { actual: got }) },
            );
          }
        }
        return;
      }
      case 'contact': {
        const held = await harness.contacts(phone);
        if (step.fields === null) {
          if (held.length > 0) {
            fail(step.line, `expected no contact for the phone, the service holds ${held.length}`, {
              expected: 'none',
              actual: JSON.stringify(held),
            });
          }
          return;
        }
        const wanted = step.fields;
        const match = held.find((contact) =>
          Object.entries(wanted).every(
            ([name, value]) => JSON.stringify(contact[name]) === JSON.stringify(value),
          ),
        );
        if (!match) {
          fail(
            step.line,
            `expected the service to hold a contact for the phone with ${JSON.stringify(wanted)}, it holds ${held.length === 0 ? 'none' : JSON.stringify(held)}`,
            { expected: JSON.stringify(wanted), actual: JSON.stringify(held) },
          );
        }
        return;
      }
      case 'expect': {
        const count = taken.get(phone.number) ?? 0;
        const message = (await phone.messages())[count];
        const wanted = describe(step.expected);
        if (!message) {
          fail(step.line, `expected ${wanted}, but the bot sent nothing more`, {
            expected: wanted,
          });
        } else if (!matches(step.expected, message.body)) {
          fail(step.line, `expected ${wanted}, got "${message.body}"`, {
            expected: wanted,
            actual: message.body,
          });
        }
        taken.set(phone.number, count + 1);
        return;
      }
    }
  }
}

function matches(expected: ExpectedText, body: string): boolean {
  if (expected.kind === 'exact') return body === expected.text;
  expected.regex.lastIndex = 0;
  return expected.regex.test(body);
}

function describe(expected: ExpectedText): string {
  return expected.kind === 'exact' ? `"${expected.text}"` : `a message matching ${expected.regex}`;
}
