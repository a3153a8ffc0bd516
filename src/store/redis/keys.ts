import { conversationId } from '../conversation-id.ts';
import { partitionOf } from '../partition-of.ts';
import type { ConversationKey } from '../records.ts';
import type { QueueName } from '../store.ts';

/**
 * Every Redis key name of the store is built here and nowhere else (the Lua scripts receive
 * whole keys, or key prefixes made here to which they append a conversation or sms id). One
 * exception: the scripts that move transcript entries find a conversation's transcript list
 * from its value's key (`transcriptKeyOf` in lib/conversation-parts.lua), the same way as
 * `ConversationKeys.transcript()` here, so that no script takes one more key for it.
 *
 * All keys of a conversation and the shared structures of its partition carry the hash tag
 * `{p<N>}`, N = `partitionOf(phone)`, so every script call touches one hash slot:
 *
 * ```
 * rf:{p7}:inbox:<location>:<phone>        list   mailbox: event JSON, oldest first
 * rf:{p7}:outbox:<location>:<phone>       list   outbound message JSON, oldest first
 * rf:{p7}:conv:<location>:<phone>         string seq, applied log, pending timers, the records of the
 *                                                latest messages (their sent guards) and the record
 *                                                (conversation-value.ts); PX the retention once ended
 * rf:{p7}:transcript:<location>:<phone>   list   the transcript's entries older than the value's
 *                                                inline ones (past 8 there, all but 4 move here),
 *                                                oldest first, capped; the value's TTL
 * rf:{p7}:lock:inbox:<location>:<phone>   hash   token, lease (ms); PX lease
 * rf:{p7}:lock:outbox:<location>:<phone>  hash   same, for the sender, with no TTL: kept until released,
 *                                                so a takeover knows its holder died mid-claim
 * rf:{p7}:ready:inbox                     zset   <location>:<phone> → time it may be claimed
 * rf:{p7}:ready:outbox                    zset   same, for the sender; an outbox of bot-initiated messages
 *                                                at storeLimits.botBandMs + that time (claim-8.lua)
 * rf:{p7}:timers                          zset   conversation id → its earliest pending due time (ms)
 * rf:{p7}:sms:<smsId>                     string <rank><sent>{record JSON} of an sms no longer among its
 *                                                conversation's latest, or dropped; EX the retention (an
 *                                                unknown sms's: briefly, see storeLimits)
 * rf:{p7}:unknown-sms                     zset   sms id → time: records made by statuses of unknown sms,
 *                                                the oldest dropped past a cap
 * rf:{p7}:early-status:<smsId>            list   status event JSON that came before recordSent,
 *                                                oldest first, capped; PX briefly
 * rf:{p7}:unrecorded:<location>:<phone>   hash   body → sms id of statuses for sms not recorded as
 *                                                sent (a takeover's in-doubt head), capped; PX briefly
 * rf:{p7}:suppressed:<location>:<phone>   string the phone opted out (JSON: {at, reason?, source?});
 *                                                no TTL, until it opts in or is removed
 * rf:{p7}:sends:<location>:<phone>        list   times (ms) of the last sends to the phone, newest
 *                                                first, capped at the loop guard's max; PX its window
 * rf:{p7}:result:<runId>                  string a conversation's result JSON (it outlives the conversation);
 *                                                PX the results' retention
 * rf:{p7}:results:<botId>                 zset   run id → end (or start) time (ms): the bot's results in the
 *                                                partition, trimmed to the results' retention
 * rf:{p7}:evt / evt-due                   hash / zset  outbound events: id → value, id → due (ms)
 * rf:{p7}:evt-dead / evt-dead-at          hash / zset  their dead letters: id → value, id → when;
 *                                                PX the retention from the last one
 * rf:dead-letters                         list   dead letter JSON, newest first, capped
 * rf:in-doubt-heard:<location>            string when the latest status of a send in doubt came (ms);
 *                                                PX the early statuses' hour
 * rf:ready                                channel "<queue>:<partition>" when work may be ready;
 *                                                "timers:<p>:<due>", "campaigns:<p>:<due>" (due earlier),
 *                                                "events:<p>" (outbound events queued)
 * ```
 */
export function storeKeys(prefix: string, partitions: number) {
  if (/[{}]/.test(prefix)) {
    throw new TypeError(
      `store prefix '${prefix}' must not contain '{' or '}': it would move the hash tag`,
    );
  }

  const partitionKeys = (p: number) => {
    const tag = `${prefix}{p${p}}:`;
    return {
      number: p,
      ready: (queue: QueueName) => `${tag}ready:${queue}`,
      /** The pub/sub message that says `queue` of this partition may have work. */
      readyMessage: (queue: QueueName) => `${queue}:${p}`,
      listPrefix: (queue: QueueName) => `${tag}${queue}:`,
      lockPrefix: (queue: QueueName) => `${tag}lock:${queue}:`,
      messagePrefix: `${tag}sms:`,
      /** Status events of an sms not yet recorded as sent, kept until `recordSent` moves them. */
      earlyStatusPrefix: `${tag}early-status:`,
      /** Per conversation: body → sms id of the sms the service reported and nobody recorded. */
      unrecordedPrefix: `${tag}unrecorded:`,
      conversationPrefix: `${tag}conv:`,
      /** One entry per conversation with pending timers, at its earliest due time. */
      timers: `${tag}timers`,
      /** The message records made by statuses of sms replyflow did not send, by time. */
      unknownMessages: `${tag}unknown-sms`,
      suppressedPrefix: `${tag}suppressed:`,
      sendsPrefix: `${tag}sends:`,
      resultPrefix: `${tag}result:`,
      resultsPrefix: `${tag}results:`,
      /** The campaigns with recipients waiting in the partition, at their earliest (zset). */
      campaignDue: `${tag}camp-due`,
      /** + campaign id: its chunks with recipients waiting, at their earliest (zset). */
      campaignChunksPrefix: `${tag}camp-chunks:`,
      /** A campaign's keys in the partition (`<location>:<name>` is its id). */
      campaign: (id: string) => ({
        /** + chunk number: a hash, row key → recipient value (recipient-value.ts). */
        chunkPrefix: `${tag}rcp:${id}:`,
        chunks: `${tag}camp-chunks:${id}`,
        /** 'active' (or absent), 'paused' or 'cancelled': what its firing checks. */
        state: `${tag}camp-state:${id}`,
        /** Its recipients per state (hash: state field → count). */
        counters: `${tag}n:camp:${id}`,
      }),
      /** + counter name: a hash of counters changed in the same call as what they count. */
      countersPrefix: `${tag}n:`,
      /** + `<campaign id>:<chunk>`: a campaign chunk (the step commit's recipient correction). */
      recipientsPrefix: `${tag}rcp:`,
      /** Outbound events queued (hash: id → event value, event-value.ts), and their due times (zset). */
      events: `${tag}evt`,
      eventsDue: `${tag}evt-due`,
      /** Dead-lettered events (hash: id → event value) and when each became one (zset). */
      deadEvents: `${tag}evt-dead`,
      deadEventsAt: `${tag}evt-dead-at`,
    };
  };
  // Made once per partition rather than on every store call.
  const byPartition = Array.from({ length: partitions }, (_, p) => partitionKeys(p));
  const partition = (p: number) => {
    const keys = Number.isInteger(p) ? byPartition[p] : undefined;
    if (!keys) {
      throw new RangeError(`partition ${p} does not exist (the store has ${partitions})`);
    }
    return keys;
  };

  const conversation = (key: ConversationKey) =>
    new ConversationKeys(partition(partitionOf(key.phone, partitions)), conversationId(key));

  return {
    partition,
    conversation,
    /** SCAN pattern of every partition's conversation records (`scanConversations`, `sample`). */
    conversationRecordPattern: `${prefix}{p*}:conv:*`,
    /** SCAN pattern of a location's suppressions in every partition (`listSuppressions`). */
    suppressedPattern: (location: string) => `${prefix}{p*}:suppressed:${location}:*`,
    deadLetters: `${prefix}dead-letters`,
    partitionCount: partitions,
    readyChannel: `${prefix}ready`,
    /** A location's campaigns: name → definition JSON (one hash per location). */
    campaigns: (location: string) => `${prefix}campaigns:${location}`,
    /** A campaign's firing schedule (its rate), both keys in one slot. */
    campaignSchedule: (location: string, name: string) => ({
      nextSlot: `${prefix}{camp:${location}:${name}}:next-slot`,
      pausedUntil: `${prefix}{camp:${location}:${name}}:paused-until`,
    }),
    /**
     * When the latest status of a send in doubt of the location arrived (ms): written after an
     * ingest that took one (ingest-9.lua), read before a message in doubt is sent again.
     */
    inDoubtHeard: (location: string) => `${prefix}in-doubt-heard:${location}`,
    /** A location's send schedule (shared rate limit): both keys in one slot, tagged by location. */
    sendSchedule: (location: string) => ({
      nextSlot: `${prefix}{send:${location}}:next-slot`,
      pausedUntil: `${prefix}{send:${location}}:paused-until`,
    }),
  };
}

export type StoreKeys = ReturnType<typeof storeKeys>;
type PartitionKeys = ReturnType<StoreKeys['partition']>;

/**
 * A conversation's keys: its partition's, and its own. Every store call makes one, so its
 * methods live on the prototype: closures made per call cost a `__name` wrapper each under tsx,
 * about 2 % of the process's CPU in the reply-loop bench. The partition's fields are copied one
 * by one: `...keys` made V8 build each object the slow way (~10 µs instead of ~1 µs).
 */
export class ConversationKeys {
  readonly number: number;
  readonly ready: PartitionKeys['ready'];
  readonly readyMessage: PartitionKeys['readyMessage'];
  readonly listPrefix: PartitionKeys['listPrefix'];
  readonly lockPrefix: PartitionKeys['lockPrefix'];
  readonly messagePrefix: string;
  readonly earlyStatusPrefix: string;
  readonly unrecordedPrefix: string;
  readonly conversationPrefix: string;
  readonly timers: string;
  readonly unknownMessages: string;
  readonly suppressedPrefix: string;
  readonly sendsPrefix: string;
  readonly resultPrefix: string;
  readonly resultsPrefix: string;
  readonly countersPrefix: string;
  readonly recipientsPrefix: string;
  readonly events: string;
  readonly eventsDue: string;
  readonly record: string;
  readonly unrecorded: string;
  /** Set while the phone is opted out of the location. */
  readonly suppressed: string;
  /** The loop guard's count: recent send times to the phone. */
  readonly sends: string;

  constructor(
    keys: PartitionKeys,
    /** The conversation id: the member of the ready sets, appended to the prefixes above. */
    readonly id: string,
  ) {
    this.number = keys.number;
    this.ready = keys.ready;
    this.readyMessage = keys.readyMessage;
    this.listPrefix = keys.listPrefix;
    this.lockPrefix = keys.lockPrefix;
    this.messagePrefix = keys.messagePrefix;
    this.earlyStatusPrefix = keys.earlyStatusPrefix;
    this.unrecordedPrefix = keys.unrecordedPrefix;
    this.conversationPrefix = keys.conversationPrefix;
    this.timers = keys.timers;
    this.unknownMessages = keys.unknownMessages;
    this.suppressedPrefix = keys.suppressedPrefix;
    this.sendsPrefix = keys.sendsPrefix;
    this.resultPrefix = keys.resultPrefix;
    this.resultsPrefix = keys.resultsPrefix;
    this.countersPrefix = keys.countersPrefix;
    this.recipientsPrefix = keys.recipientsPrefix;
    this.events = keys.events;
    this.eventsDue = keys.eventsDue;
    this.record = keys.conversationPrefix + id;
    this.unrecorded = keys.unrecordedPrefix + id;
    this.suppressed = keys.suppressedPrefix + id;
    this.sends = keys.sendsPrefix + id;
  }

  list(queue: QueueName): string {
    return this.listPrefix(queue) + this.id;
  }

  lock(queue: QueueName): string {
    return this.lockPrefix(queue) + this.id;
  }

  message(smsId: string): string {
    return this.messagePrefix + smsId;
  }

  earlyStatuses(smsId: string): string {
    return this.earlyStatusPrefix + smsId;
  }

  /** The transcript's older entries (a list), found from the value's key as the scripts do. */
  transcript(): string {
    return this.record.replace('}:conv:', '}:transcript:');
  }
}
