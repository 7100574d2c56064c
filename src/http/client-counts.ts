/** How many of something each client holds, up to a bound (its WebSockets, its subscriptions). */
export class ClientCounts {
  readonly #held = new Map<string, number>();

  constructor(private readonly perClient: number) {}

  /** Counts one for `client`, or nothing past the bound; returns the function that releases it. */
  take(client: string): (() => void) | undefined {
    const held = this.#held.get(client) ?? 0;
    if (held >= this.perClient) return undefined;
    this.#held.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#held.get(client) ?? 1) - 1;
      if (left > 0) this.#held.set(client, left);
      else this.#held.delete(client);
    };
  }
}
