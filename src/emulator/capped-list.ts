/**
 * An append-only list that keeps only its newest `capacity` items, so a long-running emulator
 * under a load test does not grow without bound. Old items are dropped in batches.
 */
export class CappedList<T> {
  #items: T[] = [];

  constructor(private readonly capacity: number) {}

  push(item: T): void {
    this.#items.push(item);
    // Trimming a tenth at a time keeps pushes amortised O(1).
    if (this.#items.length > this.capacity + Math.ceil(this.capacity / 10)) {
      this.#items = this.#items.slice(-this.capacity);
    }
  }

  toArray(): T[] {
    return this.#items.slice(-this.capacity);
  }

  clear(): void {
    this.#items = [];
  }
}
