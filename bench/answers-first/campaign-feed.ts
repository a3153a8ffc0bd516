import { startConversation } from '../../src/conversation/start-conversation.ts';
import type { Store } from '../../src/store/store.ts';
import { location } from '../reply-loop/wiring.ts';

export interface CampaignFeed {
  /** Stops starting conversations; resolves to the time each start was stored (ms), in order. */
  stop(): Promise<number[]>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `botId` conversations with new phones (`phoneOf(n)`) at `perSecond`, through the
 * store as a campaign's starts come (`startConversation`: the start goes to the phone's
 * mailbox, and the bot's message to its outbox, bot-initiated), until stopped.
 */
export function startCampaignFeed(
  store: Store,
  botId: string,
  perSecond: number,
  phoneOf: (n: number) => string,
): CampaignFeed {
  let stopped = false;
  const storedAt: number[] = [];
  const feeding = (async () => {
    const began = Date.now();
    for (let n = 0; !stopped; ) {
      const due = Math.floor(((Date.now() - began) * perSecond) / 1000);
      const batch: Promise<unknown>[] = [];
      for (; n < due; n++) {
        const phone = phoneOf(n);
        batch.push(
          startConversation(store, { location, phone, botId, now: Date.now() }).then(() =>
            storedAt.push(Date.now()),
          ),
        );
      }
      await Promise.all(batch);
      await sleep(10);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await feeding;
      return storedAt.sort((a, b) => a - b);
    },
  };
}
