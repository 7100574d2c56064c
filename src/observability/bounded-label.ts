/**
 * Keeps the values of one metric label few and short, so that callers cannot grow the number of
 * time series without bound: values are truncated, and once `limit` distinct values have been
 * seen, any new value is reported as `other` (until the process restarts).
 */
export class BoundedLabel {
  readonly #seen = new Set<string>();

  constructor(
    private readonly limit: number,
    private readonly maxLength = 64,
  ) {}

  value(raw: string | null | undefined, fallback = 'unknown'): string {
    const trimmed = raw?.trim();
    if (!trimmed) return fallback;
    const value = trimmed.slice(0, this.maxLength);
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.limit) return 'other';
    this.#seen.add(value);
    return value;
  }
}
