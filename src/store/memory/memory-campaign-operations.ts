import { campaignId, chunkOf, parseCampaignId } from '../campaign-id.ts';
import type {
  CampaignChunk,
  CampaignMeta,
  CampaignRef,
  FiringOutcome,
  RecipientEntry,
  RecipientRecord,
} from '../campaign-records.ts';
import { isPhoneRow, stateField } from '../campaign-records.ts';
import type { CampaignStore } from '../campaign-store.ts';
import { decodeRecipient, encodeRecipient } from '../recipient-value.ts';
import { storableJson } from '../storable-json.ts';
import type { StepCommit } from '../store.ts';
import type { CampaignPart, MemoryState } from './memory-state.ts';

/** The campaign operations in memory, the same semantics as the Lua scripts (the contract suite). */
export function memoryCampaignOperations(state: MemoryState): CampaignStore {
  /** The periodic tasks' leases (`leaseTask`). */
  const tasks = new Map<string, { token: string; until: number }>();
  const definitions = new Map<string, Map<string, string>>();
  const parts = state.campaignParts;
  /** per partition: campaign id → earliest due */
  const due = Array.from({ length: state.partitions }, () => new Map<string, number>());
  const dueListeners = new Set<(partition: number, dueAt: number) => void>();

  const partOf = (id: string, partition: number): CampaignPart => {
    const key = `${partition}:${id}`;
    let part = parts.get(key);
    if (!part) {
      part = { chunks: new Map(), chunkDue: new Map(), state: undefined };
      parts.set(key, part);
    }
    return part;
  };
  const counters = (id: string, partition: number) => state.countersOf(partition, `camp:${id}`);
  const move = (id: string, partition: number, from?: string, to?: string) => {
    if (from === to) return;
    const hash = counters(id, partition);
    if (from) hash.set(from, (hash.get(from) ?? 0) - 1);
    if (to) hash.set(to, (hash.get(to) ?? 0) + 1);
  };
  const field = (record: RecipientRecord) => stateField(record.state, record.reason);
  const active = (part: CampaignPart) => part.state === undefined || part.state === 'active';
  const chunkEarliest = (rows: Map<string, string> | undefined) => {
    let earliest: number | undefined;
    for (const value of rows?.values() ?? []) {
      const record = decodeRecipient(value);
      if ((record.state === 'scheduled' || record.state === 'held') && record.due !== undefined) {
        earliest = earliest === undefined ? record.due : Math.min(earliest, record.due);
      }
    }
    return earliest;
  };
  /** The campaign in the partition's due index at its earliest chunk, or out; its due time. */
  const placeCampaign = (id: string, partition: number): number | undefined => {
    const part = partOf(id, partition);
    const first = Math.min(...part.chunkDue.values());
    if (part.chunkDue.size > 0 && active(part)) {
      due[partition]!.set(id, first);
      return first;
    }
    due[partition]!.delete(id);
    return undefined;
  };
  const announce = (partition: number, dueAt: number) => {
    queueMicrotask(() => {
      for (const listener of dueListeners) listener(partition, dueAt);
    });
  };
  const settle = (id: string, partition: number, chunk: number) => {
    const part = partOf(id, partition);
    const earliest = chunkEarliest(part.chunks.get(chunk));
    if (earliest === undefined) part.chunkDue.delete(chunk);
    else part.chunkDue.set(chunk, earliest);
  };

  return {
    async saveCampaign(meta) {
      const byName = definitions.get(meta.location) ?? new Map<string, string>();
      byName.set(meta.name, storableJson(meta));
      definitions.set(meta.location, byName);
    },
    async deleteCampaign(ref) {
      definitions.get(ref.location)?.delete(ref.name);
    },
    async getCampaign(ref) {
      const json = definitions.get(ref.location)?.get(ref.name);
      return json ? (JSON.parse(json) as CampaignMeta) : null;
    },
    async listCampaigns(location) {
      const all = [...definitions]
        .filter(([name]) => location === undefined || name === location)
        .flatMap(([, byName]) =>
          [...byName.values()].map((json) => JSON.parse(json) as CampaignMeta),
        );
      return all.sort(
        (a, b) => a.location.localeCompare(b.location) || a.name.localeCompare(b.name),
      );
    },
    async setCampaignState(meta, status) {
      const id = campaignId(meta);
      for (let p = 0; p < state.partitions; p++) {
        partOf(id, p).state = status;
        const at = placeCampaign(id, p);
        if (at !== undefined) announce(p, at);
      }
    },
    async upsertRecipients(meta, generation, rows) {
      const id = campaignId(meta);
      const outcome = { added: 0, rescheduled: 0, unchanged: 0, optedOut: 0 };
      const earliest = new Map<number, number>();
      for (const { row, record: given } of rows) {
        const partition = state.partitionOf(given.phone ?? row);
        const chunk = chunkOf(row, state.partitions, meta.chunks);
        const part = partOf(id, partition);
        const chunkRows = part.chunks.get(chunk) ?? new Map<string, string>();
        part.chunks.set(chunk, chunkRows);
        const stored = chunkRows.get(row);
        const old = stored === undefined ? undefined : decodeRecipient(stored);
        const phone = given.phone ?? (isPhoneRow(row) ? row : undefined);
        if (
          old &&
          old.due === given.due &&
          old.request === given.request &&
          storableJson(old.input ?? null) === storableJson(given.input ?? null) &&
          (phone !== undefined || old.reason === given.reason)
        ) {
          outcome.unchanged++;
          chunkRows.set(row, encodeRecipient({ ...old, generation, line: given.line }));
          continue;
        }
        let record: RecipientRecord = {
          ...given,
          generation,
          revision: old ? old.revision + 1 : 0,
        };
        if (
          record.state === 'scheduled' &&
          phone !== undefined &&
          state.suppressed.has(`${meta.location}:${phone}`)
        ) {
          record = { ...record, state: 'skipped', reason: 'opted_out' };
          outcome.optedOut++;
        }
        if (old) outcome.rescheduled++;
        else outcome.added++;
        move(id, partition, old && field(old), field(record));
        chunkRows.set(row, encodeRecipient(record));
        if (record.state === 'scheduled' && record.due !== undefined) {
          part.chunkDue.set(chunk, Math.min(part.chunkDue.get(chunk) ?? Infinity, record.due));
          earliest.set(partition, Math.min(earliest.get(partition) ?? Infinity, record.due));
        }
      }
      for (const [partition, at] of earliest) {
        const part = partOf(id, partition);
        const known = due[partition]!.get(id);
        if (active(part) && (known === undefined || at < known)) {
          due[partition]!.set(id, at);
          announce(partition, at);
        }
      }
      return outcome;
    },
    async sweepRecipients(meta, generation, options = {}) {
      const id = campaignId(meta);
      let cancelled = 0;
      for (let p = 0; p < state.partitions; p++) {
        const part = partOf(id, p);
        for (const [chunk, rows] of part.chunks) {
          for (const [row, value] of rows) {
            const record = decodeRecipient(value);
            if (record.generation >= generation) continue;
            if (!isPhoneRow(row)) {
              if (options.keepRowsWithoutPhone) continue;
              rows.delete(row);
              move(id, p, field(record), undefined);
            } else if (record.state === 'scheduled' || record.state === 'held') {
              const swept: RecipientRecord = { ...record, state: 'skipped', reason: 'cancelled' };
              rows.set(row, encodeRecipient(swept));
              move(id, p, field(record), field(swept));
              cancelled++;
            }
          }
          settle(id, p, chunk);
        }
        placeCampaign(id, p);
      }
      return cancelled;
    },
    async pruneRecipients(meta, partition, endedBefore) {
      const id = campaignId(meta);
      let pruned = 0;
      for (const rows of partOf(id, partition).chunks.values()) {
        for (const [row, value] of rows) {
          const record = decodeRecipient(value);
          if (record.state === 'scheduled' || record.state === 'held') continue;
          if (record.due === undefined || record.due >= endedBefore) continue;
          rows.delete(row);
          move(id, partition, field(record), undefined);
          pruned++;
        }
      }
      return pruned;
    },
    async findRecipient(meta, row) {
      const id = campaignId(meta);
      const chunk = chunkOf(row, state.partitions, meta.chunks);
      for (let partition = 0; partition < state.partitions; partition++) {
        const value = partOf(id, partition).chunks.get(chunk)?.get(row);
        if (value !== undefined) {
          return {
            chunk: { location: meta.location, name: meta.name, partition, chunk },
            entry: { row, record: decodeRecipient(value) },
          };
        }
      }
      return null;
    },
    async campaignCounts(ref: CampaignRef) {
      return state.sumCounters(`camp:${campaignId(ref)}`);
    },
    async *scanRecipients(meta) {
      const id = campaignId(meta);
      for (let p = 0; p < state.partitions; p++) {
        for (const rows of partOf(id, p).chunks.values()) {
          const entries = [...rows].map(([row, value]) => ({
            row,
            record: decodeRecipient(value),
          }));
          if (entries.length > 0) yield entries;
        }
      }
    },
    async nextCampaignDue(partition) {
      const times = [...due[partition]!.values()];
      return times.length > 0 ? Math.min(...times) : undefined;
    },
    async claimDueChunks(partition, now, leaseMs, max) {
      const claimed: CampaignChunk[] = [];
      const campaigns = [...due[partition]!]
        .filter(([, at]) => at <= now)
        .sort((a, b) => a[1] - b[1]);
      for (const [id] of campaigns) {
        if (claimed.length >= max) break;
        const part = partOf(id, partition);
        const chunks = [...part.chunkDue].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
        for (const [chunk] of chunks.slice(0, max - claimed.length)) {
          part.chunkDue.set(chunk, now + leaseMs);
          claimed.push({ ...parseCampaignId(id), partition, chunk });
        }
        placeCampaign(id, partition);
      }
      return claimed;
    },
    async readChunk(chunk) {
      const rows = partOf(campaignId(chunk), chunk.partition).chunks.get(chunk.chunk);
      return [...(rows ?? [])].map(
        ([row, value]): RecipientEntry => ({ row, record: decodeRecipient(value) }),
      );
    },
    async fireRecipients(chunk, decisions, now) {
      const id = campaignId(chunk);
      const part = partOf(id, chunk.partition);
      if (part.state === 'paused' || part.state === 'cancelled') return { state: part.state };
      const rows = part.chunks.get(chunk.chunk);
      const outcomes: FiringOutcome[] = [];
      let announced = false;
      for (const decision of decisions) {
        const stored = rows?.get(decision.row);
        const record = stored === undefined ? undefined : decodeRecipient(stored);
        if (
          !record ||
          record.revision !== decision.revision ||
          (record.state !== 'scheduled' && record.state !== 'held')
        ) {
          outcomes.push('stale');
          continue;
        }
        let next: RecipientRecord;
        if (decision.action === 'start') {
          const conversation = `${decision.phone.location}:${decision.phone.phone}`;
          if (state.suppressed.has(conversation)) {
            next = { ...record, state: 'skipped', reason: 'opted_out' };
            outcomes.push('opted_out');
          } else {
            if (state.queues.inbox.append(conversation, chunk.partition, [decision.event], now)) {
              announced = true;
            }
            next = { ...record, state: 'started' };
            outcomes.push('started');
          }
        } else if (decision.action === 'hold') {
          next = { ...record, state: 'held', due: decision.until };
          outcomes.push('held');
        } else {
          next = { ...record, state: 'skipped', reason: decision.reason };
          outcomes.push('skipped');
        }
        rows!.set(decision.row, encodeRecipient(next));
        move(id, chunk.partition, field(record), field(next));
      }
      if (announced) state.listeners.emit('inbox', chunk.partition);
      return { state: 'active', outcomes };
    },
    async settleChunk(chunk, _chunks) {
      const id = campaignId(chunk);
      settle(id, chunk.partition, chunk.chunk);
      return placeCampaign(id, chunk.partition);
    },
    onCampaignDue(listener) {
      dueListeners.add(listener);
      return () => dueListeners.delete(listener);
    },
    async readCounters(name) {
      return state.sumCounters(name);
    },
    async adjustCounters(changes) {
      state.changeCounters(0, changes);
    },
    async leaseTask(name, token, now, ttlMs) {
      const held = tasks.get(name);
      if (held && held.until > now) return false;
      tasks.set(name, { token, until: now + ttlMs });
      return true;
    },
  };
}

/**
 * A step commit's recipient correction (`StepCommit.recipient`), as commit-step-17.lua makes it:
 * a recipient still `started` at that revision becomes skipped, with its counters.
 */
export function skipStartedRecipient(
  state: MemoryState,
  partition: number,
  change: NonNullable<StepCommit['recipient']>,
): void {
  const rows = state.campaignParts
    .get(`${partition}:${change.campaign}`)
    ?.chunks.get(change.start.chunk);
  const stored = rows?.get(change.start.row);
  if (stored === undefined) return;
  const record = decodeRecipient(stored);
  if (record.state !== 'started' || record.revision !== change.start.revision) return;
  const skipped: RecipientRecord = { ...record, state: change.state, reason: change.reason };
  rows!.set(change.start.row, encodeRecipient(skipped));
  const hash = state.countersOf(partition, `camp:${change.campaign}`);
  const from = stateField(record.state, record.reason);
  const to = stateField(skipped.state, skipped.reason);
  hash.set(from, (hash.get(from) ?? 0) - 1);
  hash.set(to, (hash.get(to) ?? 0) + 1);
}
