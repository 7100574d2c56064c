/**
 * A request's time limit as the work sees it. Its abort signal is made only when something asks
 * for it (a mutation, a transaction): a read that never looks costs no AbortController.
 */
export class Deadline {
  #controller: AbortController | undefined;
  #reason: Error | undefined;

  constructor(readonly at: number) {}

  /** Aborted once the request has run past its limit (then with a 503 TIMEOUT as the reason). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get expired(): boolean {
    return this.#reason !== undefined;
  }

  expire(reason: Error): void {
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
