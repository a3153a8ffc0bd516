import type { QueueName } from './store.ts';

type Listener = (queue: QueueName, partition: number) => void;

/**
 * The `onReady` listeners of the memory store. They are called on a microtask, after the
 * operation that made work ready has finished, as a Redis subscriber would be; a listener that
 * throws is reported to `onError` and never reaches the caller of that operation.
 */
export class ReadyListeners {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly onError: (error: unknown) => void = reportAsWarning) {}

  add(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(queue: QueueName, partition: number): void {
    queueMicrotask(() => {
      for (const listener of this.listeners) {
        try {
          listener(queue, partition);
        } catch (error) {
          this.onError(error);
        }
      }
    });
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** The default `onError`: a process warning, so nothing is swallowed and nothing crashes. */
export function reportAsWarning(error: unknown): void {
  process.emitWarning(
    error instanceof Error ? error : new Error(String(error)),
    'ReplyflowStoreWarning',
  );
}
