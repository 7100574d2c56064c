const always = () => true;

/**
 * Keeps the values of one metric label few and short, so that callers cannot grow the number of
 * time series without bound: values are truncated, and once `limit` distinct values have been
 * seen, any new value is reported as `other` (until the process restarts). `kept` values are seen
 * from the start (they count in the limit).
 */
export class BoundedLabel {
  readonly #seen: Set<string>;

  constructor(
    private readonly limit: number,
    private readonly maxLength = 64,
    kept: Iterable<string> = [],
  ) {
    this.#seen = new Set(kept);
  }

  /**
   * The value to report for `raw`: `fallback` when it is empty. `mayAdd` is asked only when a new
   * value would take one of the free places: false makes it `other` instead.
   */
  value(raw: string | null | undefined, fallback = 'unknown', mayAdd = always): string {
    const trimmed = raw?.trim();
    if (!trimmed) return fallback;
    const value = trimmed.slice(0, this.maxLength);
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.limit || !mayAdd()) return 'other';
    this.#seen.add(value);
    return value;
  }
}
