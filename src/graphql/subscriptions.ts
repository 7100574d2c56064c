import { DomainError } from '../domain/errors.js';

/** Who holds a subscription: the token subject, else the peer address (as the rate limit). */
export interface Subscriber {
  readonly client: string;
  readonly subscriptions: Subscriptions;
}

/** The open subscriptions of one app, over both transports: the per-client bound, and shutdown. */
export class Subscriptions {
  readonly #openByClient = new Map<string, number>();
  readonly #ends = new Set<() => void>();
  #closed = false;

  constructor(readonly perClient: number) {}

  get size(): number {
    return this.#ends.size;
  }

  /**
   * Counts a new subscription of `client`, or refuses it (RATE_LIMITED) past the bound; `end` is
   * called to finish it at shutdown. Returns the function that uncounts it.
   */
  open(client: string, end: () => void): () => void {
    if (this.#closed) {
      throw new DomainError('UNAVAILABLE', 'The server is shutting down; subscribe again shortly');
    }
    const open = this.#openByClient.get(client) ?? 0;
    if (open >= this.perClient) {
      throw new DomainError(
        'RATE_LIMITED',
        `A client may hold at most ${this.perClient} subscriptions open at once; complete one before starting another`,
      );
    }
    this.#openByClient.set(client, open + 1);
    this.#ends.add(end);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#ends.delete(end);
      const left = (this.#openByClient.get(client) ?? 1) - 1;
      if (left > 0) this.#openByClient.set(client, left);
      else this.#openByClient.delete(client);
    };
  }

  /** Refuses new subscriptions and completes every open one (their streams end cleanly). */
  close(): void {
    this.#closed = true;
    for (const end of [...this.#ends]) end();
  }
}
