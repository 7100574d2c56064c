import { DomainError } from '../../errors/catalogue.js';
import { ClientCounts } from '../../http/client-counts.js';

/** Who holds a subscription: the token subject, else the peer address (as the rate limit). */
export interface Subscriber {
  readonly client: string;
  readonly subscriptions: Subscriptions;
}

/** The open subscriptions of one app, over both transports: the per-client bound, and shutdown. */
export class Subscriptions {
  readonly #counts: ClientCounts;
  readonly #ends = new Set<() => void>();
  #closed = false;

  constructor(readonly perClient: number) {
    this.#counts = new ClientCounts(perClient);
  }

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
    const release = this.#counts.take(client);
    if (!release) {
      throw new DomainError(
        'RATE_LIMITED',
        `A client may hold at most ${this.perClient} subscriptions open at once; complete one before starting another`,
      );
    }
    this.#ends.add(end);
    return () => {
      this.#ends.delete(end);
      release();
    };
  }

  /** Refuses new subscriptions and completes every open one (their streams end cleanly). */
  close(): void {
    this.#closed = true;
    for (const end of [...this.#ends]) end();
  }
}
