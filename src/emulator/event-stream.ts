import type { Response } from 'express';

/** What the emulator announces on `GET /_emulator/events`. */
export type EmulatorEventName = 'sms.created' | 'sms.status' | 'reply' | 'delivery';

/**
 * A Server-Sent Events hub: the dev phone page, and anyone curious, watch what the emulator does
 * as it happens. Nothing is buffered; a subscriber sees the events after it connected.
 */
export class EventStream {
  readonly #subscribers = new Set<Response>();
  readonly #listeners = new Set<(event: EmulatorEventName, data: unknown) => void>();

  /**
   * Calls `listener` synchronously with every event, in the process (the dev phone keeps its
   * threads from them). Returns an unsubscribe.
   */
  listen(listener: (event: EmulatorEventName, data: unknown) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  subscribe(res: Response): void {
    res.status(200).set({
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    res.flushHeaders();
    // A comment line, so the client knows at once that the stream is open.
    res.write(': connected\n\n');
    this.#subscribers.add(res);
    res.on('close', () => this.#subscribers.delete(res));
  }

  publish(event: EmulatorEventName, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of this.#subscribers) res.write(frame);
    for (const listener of this.#listeners) {
      // A listener's bug must not stop the emulator from announcing the next change.
      try {
        listener(event, data);
      } catch {}
    }
  }

  closeAll(): void {
    for (const res of this.#subscribers) res.end();
    this.#subscribers.clear();
  }
}
