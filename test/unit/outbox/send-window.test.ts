import { describe, expect, it } from 'vitest';
import { createSendWindow } from '../../../src/outbox/send-window.ts';

/** A promise the test settles by hand. */
function gate<T = void>() {
  let open!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createSendWindow', () => {
  it('lets `size` sends run at once and the others wait their turn, first come first served', async () => {
    const window = createSendWindow(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      window.run(async () => {
        started.push(i);
        await g.promise;
        return i;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(window.inFlight).toBe(2);
    gates[1]!.open();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.open();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    gates[2]!.open();
    gates[3]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(window.inFlight).toBe(0);
  });

  it('lets a waiting answer in before the bot-initiated sends waiting longer', async () => {
    const window = createSendWindow(1);
    const first = gate();
    const started: string[] = [];
    const run = (name: string, bulk: boolean) =>
      window.run(
        async () => {
          started.push(name);
          if (name === 'first') await first.promise;
        },
        { bulk },
      );
    const runs = [
      run('first', true),
      run('bulk 1', true),
      run('bulk 2', true),
      run('answer', false),
    ];
    await tick();
    first.open();
    await Promise.all(runs);
    expect(started).toEqual(['first', 'answer', 'bulk 1', 'bulk 2']);
  });

  it('keeps places for answers that bot-initiated sends never hold', async () => {
    const window = createSendWindow(4, 1);
    const held = gate();
    const started: string[] = [];
    const run = (name: string, bulk: boolean) =>
      window.run(
        async () => {
          started.push(name);
          await held.promise;
        },
        { bulk },
      );
    const runs = [1, 2, 3, 4].map((i) => run(`bulk ${i}`, true));
    await tick();
    // Three bulk sends in flight, the fourth waits: the last place is an answer's.
    expect(started).toEqual(['bulk 1', 'bulk 2', 'bulk 3']);
    runs.push(run('answer', false));
    await tick();
    expect(started).toEqual(['bulk 1', 'bulk 2', 'bulk 3', 'answer']);
    expect(window.inFlight).toBe(4);
    held.open();
    await Promise.all(runs);
    expect(started).toHaveLength(5);
    expect(window.inFlight).toBe(0);
  });

  it('frees the place of a send that failed, and passes its error on', async () => {
    const window = createSendWindow(1);
    const failing = gate();
    const first = window.run(() => failing.promise);
    let secondRan = false;
    const second = window.run(async () => {
      secondRan = true;
    });
    await tick();
    expect(secondRan).toBe(false);
    failing.fail(new Error('HTTP 503'));
    await expect(first).rejects.toThrow('HTTP 503');
    await second;
    expect(secondRan).toBe(true);
    expect(window.inFlight).toBe(0);
  });

  it('refuses a size that is not a whole number of at least 1', () => {
    expect(() => createSendWindow(0)).toThrow(RangeError);
    expect(() => createSendWindow(1.5)).toThrow(/whole number/);
  });
});
