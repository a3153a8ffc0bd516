import {
  findTranscripts,
  playTranscriptFile,
  runTranscript,
  TranscriptFailedError,
  type TranscriptOutcome,
} from 'replyflow/testing';
import { describe, expect, it } from 'vitest';

const bots = 'test/fixtures/kit-bots';
const dir = 'test/fixtures/transcripts';

async function failureOf(name: string) {
  const outcome: TranscriptOutcome = await playTranscriptFile(`${dir}/fail/${name}`, { bots });
  if (outcome.passed) throw new Error(`${name} passed`);
  return outcome.failure;
}

describe('transcripts', () => {
  it.each([
    'appointment-yes',
    'appointment-timers',
    'appointment-failed-delivery',
    'join',
    'appointment-stop',
  ])('%s passes', async (name) => {
    await runTranscript(`${dir}/pass/${name}.transcript`, { bots });
  });

  it('fails on a wrong text with the file, the line, the expected and the actual text', async () => {
    const failure = await failureOf('wrong-text.transcript');
    expect(failure).toMatchObject({
      file: `${dir}/fail/wrong-text.transcript`,
      line: 2,
      expected: '"Bonjour Ana, confirmez-vous demain 11h ? OUI ou NON"',
      actual: 'Bonjour Ana, confirmez-vous demain 10h ? OUI ou NON',
    });
    expect(failure.message).toBe(
      `${dir}/fail/wrong-text.transcript:2: expected "Bonjour Ana, confirmez-vous demain 11h ? OUI ou NON", got "Bonjour Ana, confirmez-vous demain 10h ? OUI ou NON"`,
    );
  });

  it('fails on a regular expression that does not match', async () => {
    const failure = await failureOf('regex-mismatch.transcript');
    expect(failure.message).toBe(
      `${dir}/fail/regex-mismatch.transcript:2: expected a message matching /^Bonsoir/, got "Bonjour Ana, confirmez-vous demain 10h ? OUI ou NON"`,
    );
  });

  it('fails on an SMS no `<` line took before the next step', async () => {
    const failure = await failureOf('extra-message.transcript');
    expect(failure.line).toBe(2);
    expect(failure.message).toBe(
      `${dir}/fail/extra-message.transcript:2: unexpected message from the bot before line 2: "Bonjour Ana, confirmez-vous demain 10h ? OUI ou NON"`,
    );
  });

  it('fails on an SMS no `<` line took at the end of the file', async () => {
    const failure = await failureOf('extra-at-end.transcript');
    expect(failure.message).toBe(
      `${dir}/fail/extra-at-end.transcript:3: unexpected message from the bot at the end of the transcript: "Merci Ana, à demain."`,
    );
  });

  it('fails on a message the bot never sent', async () => {
    const failure = await failureOf('missing-message.transcript');
    expect(failure.message).toBe(
      `${dir}/fail/missing-message.transcript:3: expected "Merci Ana, à demain.", but the bot sent nothing more`,
    );
  });

  it('fails on a wrong state', async () => {
    const failure = await failureOf('wrong-state.transcript');
    expect(failure.message).toBe(
      `${dir}/fail/wrong-state.transcript:5: expected the state ended, got confirmed`,
    );
  });

  it('fails on a syntax error before running anything, naming each line', async () => {
    const failure = await failureOf('syntax.transcript');
    expect(failure.line).toBe(1);
    expect(failure.message.split('\n')).toEqual([
      `${dir}/fail/syntax.transcript:1: @now tomorrow is not an ISO date-time`,
      expect.stringMatching(/syntax\.transcript:2: @start kit-appointment: the input is not JSON/),
      expect.stringMatching(/syntax\.transcript:3: cannot read "hello"/),
      `${dir}/fail/syntax.transcript:4: @advance soon is not a duration such as 24h, 90m or 3d`,
    ]);
  });

  it('runTranscript throws the failure for vitest', async () => {
    const failing = runTranscript(`${dir}/fail/wrong-state.transcript`, { bots });
    await expect(failing).rejects.toBeInstanceOf(TranscriptFailedError);
    await expect(failing).rejects.toThrow(/wrong-state\.transcript:5: expected the state ended/);
  });

  it('takes the bots from REPLYFLOW_BOTS_DIR when none are given', async () => {
    const before = process.env.REPLYFLOW_BOTS_DIR;
    process.env.REPLYFLOW_BOTS_DIR = bots;
    try {
      await runTranscript(`${dir}/pass/join.transcript`);
    } finally {
      if (before === undefined) delete process.env.REPLYFLOW_BOTS_DIR;
      else process.env.REPLYFLOW_BOTS_DIR = before;
    }
  });

  it('finds the transcripts of folders and files, sorted, once each', async () => {
    expect(
      await findTranscripts([`${dir}/pass`, `${dir}/pass/join.transcript`, 'no-such-folder']),
    ).toEqual([
      `${dir}/pass/appointment-failed-delivery.transcript`,
      `${dir}/pass/appointment-stop.transcript`,
      `${dir}/pass/appointment-timers.transcript`,
      `${dir}/pass/appointment-yes.transcript`,
      `${dir}/pass/join.transcript`,
    ]);
    await expect(findTranscripts(['no-such-folder'], { required: true })).rejects.toThrow(
      'no-such-folder does not exist: name a transcript file or a folder',
    );
  });
});
