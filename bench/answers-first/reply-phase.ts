import { replyNotification } from '../reply-loop/wiring.ts';

/** An SMS as the emulator's control API lists it. */
export interface ListedSms {
  to: string;
  body: string;
  createdAt: string;
}

export interface ReplyTimings {
  /** Per reply: when replyflow's webhook answered 200 (ms). */
  ackedAt: number[];
  /** Per reply: from that 200 to the emulator's `createdAt` of the bot's answer (ms). */
  waits: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every SMS the emulator accepted (optionally to one phone), oldest first. */
export async function listSms(emulatorUrl: string, to?: string): Promise<ListedSms[]> {
  const res = await fetch(`${emulatorUrl}/_emulator/messages${to ? `?to=${to}` : ''}`);
  return (await res.json()) as ListedSms[];
}

/**
 * `phones.length` people each text `ECHO …` once, at random moments spread over `seconds`
 * (each a new conversation: the keyword starts the echo bot, which answers at once); resolves
 * to when replyflow's webhook answered each one 200 (ms).
 */
export async function postReplies(
  webhookUrl: string,
  phones: readonly string[],
  seconds: number,
  tag: string,
): Promise<number[]> {
  const began = Date.now();
  const moments = phones.map(() => Math.random() * seconds * 1000).sort((a, b) => a - b);
  return Promise.all(
    phones.map(async (phone, i) => {
      await sleep(began + moments[i]! - Date.now());
      const res = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: replyNotification(`${tag}-${i}`, phone, `ECHO ${tag}-${i}`),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`the webhook answered ${res.status} to a reply`);
      return Date.now();
    }),
  );
}

/** Waits for the bot's answer to each phone at the emulator; resolves to its `createdAt` (ms), per phone. */
export async function answersTo(
  emulatorUrl: string,
  phones: readonly string[],
  timeoutMs = 120_000,
): Promise<number[]> {
  const answeredAt = new Map<string, number>();
  for (const deadline = Date.now() + timeoutMs; answeredAt.size < phones.length; ) {
    if (Date.now() > deadline) {
      throw new Error(
        `${phones.length - answeredAt.size} replies got no answer in ${timeoutMs / 1000} s`,
      );
    }
    for (const phone of phones.filter((p) => !answeredAt.has(p))) {
      const answer = (await listSms(emulatorUrl, phone)).find((sms) => sms.body.startsWith('#'));
      if (answer) answeredAt.set(phone, Date.parse(answer.createdAt));
    }
    await sleep(200);
  }
  return phones.map((phone) => answeredAt.get(phone)!);
}

/** Both: the replies, then each one's wait, from the webhook's 200 to its answer's arrival. */
export async function timeReplies(
  webhookUrl: string,
  emulatorUrl: string,
  phones: readonly string[],
  seconds: number,
  tag: string,
): Promise<ReplyTimings> {
  const ackedAt = await postReplies(webhookUrl, phones, seconds, tag);
  const answeredAt = await answersTo(emulatorUrl, phones);
  return { ackedAt, waits: answeredAt.map((at, i) => at - ackedAt[i]!) };
}
