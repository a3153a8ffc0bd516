import type { Response } from 'express';

/** One line of a phone's thread, in the order the server saw it happen (`seq`). */
export type ThreadEntry = { seq: number; at: number; phone: string } & (
  | { kind: 'sms'; smsId: string }
  | { kind: 'reply'; body: string; error?: string }
  | { kind: 'notice'; text: string; tone: 'info' | 'warn' | 'error' }
);

/** What travels on `GET /dev/events`: a new thread entry, or a change to show (`webhook`: an event the dev receiver took, or an answer to it). */
export type DevFrameType =
  | 'entry'
  | 'sms'
  | 'conversation'
  | 'phones'
  | 'bots'
  | 'clock'
  | 'reset'
  | 'webhook';

interface Frame {
  seq: number;
  type: DevFrameType;
  data: unknown;
}

type NewEntry = ThreadEntry extends infer E
  ? E extends ThreadEntry
    ? Omit<E, 'seq'>
    : never
  : never;

/** Frames kept for a reconnecting page; one that has missed more reloads its state. */
const replayCap = 2000;
/** Entries kept per phone, and phones kept (least recently active go first): a dev session, not an archive. */
const threadCap = 1000;
const phoneCap = 1000;

/**
 * The dev phone's memory: each phone's thread and one sequence for everything the page is
 * told. Numbering on the server is what keeps the true order of events: the person's reply is
 * numbered when the emulator takes it in, before the webhook that makes the bot answer, so an
 * answer can never sort above the message it answers. Every frame carries its `seq` as the
 * Server-Sent Events id, so a page that reconnects gets what it missed (`Last-Event-ID`).
 */
export class DevPhoneJournal {
  #seq = 0;
  readonly #threads = new Map<string, ThreadEntry[]>();
  readonly #frames: Frame[] = [];
  readonly #subscribers = new Set<Response>();

  get seq(): number {
    return this.#seq;
  }

  /** Phones with a thread, most recently active first. */
  phones(): string[] {
    return [...this.#threads.keys()].reverse();
  }

  has(phone: string): boolean {
    return this.#threads.has(phone);
  }

  thread(phone: string): ThreadEntry[] {
    return [...(this.#threads.get(phone) ?? [])];
  }

  /** Makes sure a phone has a (possibly empty) thread, so the picker lists it. */
  open(phone: string): boolean {
    if (this.#threads.has(phone)) return false;
    this.#threads.set(phone, []);
    this.#forgetOldest();
    return true;
  }

  /** Appends an entry to its phone's thread and announces it (with `extra`, e.g. the SMS). */
  append(entry: NewEntry, extra: Record<string, unknown> = {}): ThreadEntry {
    const seq = this.#next();
    const numbered = { ...entry, seq } as ThreadEntry;
    const thread = this.#threads.get(entry.phone) ?? [];
    // Most recently active last in the map, so `phones()` lists it first.
    this.#threads.delete(entry.phone);
    this.#threads.set(entry.phone, thread);
    this.#forgetOldest();
    thread.push(numbered);
    if (thread.length > threadCap) thread.splice(0, thread.length - threadCap);
    this.#send({ seq, type: 'entry', data: { entry: numbered, ...extra } });
    return numbered;
  }

  /** Empties a phone's thread (the phone stays listed). */
  clear(phone: string): void {
    this.#threads.set(phone, []);
    this.publish('reset', { phone });
  }

  /** Announces a change that is not a thread entry. */
  publish(type: Exclude<DevFrameType, 'entry'>, data: unknown): number {
    const seq = this.#next();
    this.#send({ seq, type, data });
    return seq;
  }

  /** Streams frames after `after` (when still kept, else a `resync`), then every new one. */
  subscribe(res: Response, after: number | undefined): void {
    res.status(200).set({
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    res.flushHeaders();
    res.write('retry: 1000\n\n');
    if (after !== undefined && after < this.#seq) {
      const oldest = this.#frames[0]?.seq ?? this.#seq + 1;
      if (after + 1 < oldest) res.write(`event: resync\ndata: {}\n\n`);
      else for (const frame of this.#frames) if (frame.seq > after) res.write(encode(frame));
    }
    this.#subscribers.add(res);
    res.on('close', () => this.#subscribers.delete(res));
  }

  get watched(): boolean {
    return this.#subscribers.size > 0;
  }

  closeAll(): void {
    for (const res of this.#subscribers) res.end();
    this.#subscribers.clear();
  }

  #forgetOldest(): void {
    while (this.#threads.size > phoneCap) this.#threads.delete(this.#threads.keys().next().value!);
  }

  #next(): number {
    this.#seq += 1;
    return this.#seq;
  }

  #send(frame: Frame): void {
    this.#frames.push(frame);
    if (this.#frames.length > replayCap) this.#frames.splice(0, this.#frames.length - replayCap);
    const text = encode(frame);
    for (const res of this.#subscribers) res.write(text);
  }
}

function encode(frame: Frame): string {
  return `id: ${frame.seq}\nevent: ${frame.type}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}
