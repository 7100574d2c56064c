/**
 * The events a subscription has waiting for its client, bounded: events with the same key coalesce
 * (the data is read when an event is delivered, so one pending `updated` of pet 7 stands for any
 * number of them), and past `capacity` distinct events the queue overflows and takes no more.
 */
export class PendingEvents<Event> {
  readonly #pending = new Map<string, Event>();
  #overflowed = false;
  #wake: (() => void) | undefined;

  constructor(readonly capacity: number) {}

  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** Adds an event unless one with its key waits; returns false once the queue has overflowed. */
  add(key: string, event: Event): boolean {
    if (this.#overflowed) return false;
    if (!this.#pending.has(key)) {
      if (this.#pending.size >= this.capacity) {
        this.#overflowed = true;
        this.#pending.clear();
        return false;
      }
      this.#pending.set(key, event);
    }
    return true;
  }

  /** The oldest waiting event, taken off the queue. */
  take(): Event | undefined {
    const first = this.#pending.entries().next();
    if (first.done) return undefined;
    this.#pending.delete(first.value[0]);
    return first.value[1];
  }

  /** Resolves at the next `notify`. */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  notify(): void {
    const waiting = this.#wake;
    this.#wake = undefined;
    waiting?.();
  }

  clear(): void {
    this.#pending.clear();
  }
}
