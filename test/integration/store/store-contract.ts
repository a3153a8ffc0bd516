import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../../src/store/store.ts';
import { answersFirstContract } from './contract/answers-first-contract.ts';
import { apiStartContract } from './contract/api-start-contract.ts';
import { campaignContract } from './contract/campaign-contract.ts';
import { commitContract } from './contract/commit-contract.ts';
import { countersContract } from './contract/counters-contract.ts';
import { directCommitContract } from './contract/direct-commit-contract.ts';
import { earlyStatusContract } from './contract/early-status-contract.ts';
import { eventOutboxContract } from './contract/event-outbox-contract.ts';
import { inDoubtContract } from './contract/in-doubt-contract.ts';
import { ingestClaimContract } from './contract/ingest-claim-contract.ts';
import { ingestContract } from './contract/ingest-contract.ts';
import { inspectionContract } from './contract/inspection-contract.ts';
import { lastLookContract } from './contract/last-look-contract.ts';
import { leaseContract } from './contract/lease-contract.ts';
import { monitoringContract } from './contract/monitoring-contract.ts';
import { outboxContract } from './contract/outbox-contract.ts';
import { resultContract } from './contract/result-contract.ts';
import { scanContract } from './contract/scan-contract.ts';
import { suppressionContract } from './contract/suppression-contract.ts';
import { suppressionListContract } from './contract/suppression-list-contract.ts';
import { timerContract } from './contract/timer-contract.ts';
import { transcriptContract } from './contract/transcript-contract.ts';

export interface StoreUnderTest {
  store: Store;
  cleanup(): Promise<void>;
}

/**
 * The behaviour every store driver must show (the port's TSDoc in `src/store/store.ts`, made
 * executable). Each test gets a fresh, empty store from `makeStore`.
 */
export function describeStoreContract(
  name: string,
  makeStore: () => Promise<StoreUnderTest>,
): void {
  describe(`${name} store`, () => {
    let current: StoreUnderTest | undefined;
    beforeEach(async () => {
      current = await makeStore();
    });
    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });
    const store = () => {
      if (!current) throw new Error('no store: the contract runs inside its tests only');
      return current.store;
    };

    ingestContract(store);
    earlyStatusContract(store);
    leaseContract(store);
    inDoubtContract(store);
    ingestClaimContract(store);
    commitContract(store);
    directCommitContract(store);
    outboxContract(store);
    lastLookContract(store);
    countersContract(store);
    answersFirstContract(store);
    inspectionContract(store);
    timerContract(store);
    scanContract(store);
    suppressionContract(store);
    suppressionListContract(store);
    resultContract(store);
    monitoringContract(store);
    campaignContract(store);
    apiStartContract(store);
    transcriptContract(store);
    eventOutboxContract(store);
  });
}
