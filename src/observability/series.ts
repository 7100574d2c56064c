import type { Metric, Registry } from 'prom-client';

/**
 * Counters and histograms for what every request counts. A request finds its series through one
 * Map a label (no key is built) and adds to numbers; the registry reads the totals only when
 * /metrics is scraped. prom-client's own `inc` and `observe` validate the labels and hash them on
 * every call: with the object spreads around them, a tenth of a cache hit's CPU. The exposition is
 * prom-client's (the registry formats what `get` returns), so the series read the same as before.
 *
 * Label values must be bounded by the caller (BoundedLabel, route patterns, status codes): every
 * distinct combination is a series kept until the process ends, as in prom-client.
 */
type Labels<L extends string> = Readonly<Record<L, string>>;

interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  registers: Registry[];
}

/** The series of a metric by their label values, one level a label: no key is built to find one. */
type SeriesTree<Entry> = Map<string | undefined, SeriesTree<Entry> | Entry>;

abstract class Series<L extends string, Entry> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum';
  protected readonly labelNames: readonly L[];
  /** Every series, in the order they appeared: what the registry reads. */
  protected readonly series: { labels: Labels<L>; entry: Entry }[] = [];
  #tree: SeriesTree<Entry> = new Map();
  #unlabelled: Entry | undefined;

  constructor(options: MetricOptions<L>) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
    // The registry calls `get` and `reset`, as it does a prom-client metric's.
    for (const registry of options.registers)
      registry.registerMetric(this as unknown as Metric<string>);
  }

  abstract readonly type: 'counter' | 'histogram';

  protected abstract create(): Entry;

  /** The metric as the registry formats it. */
  protected withValues<V>(values: V[]) {
    const { name, help, type, aggregator } = this;
    return { name, help, type, aggregator, values };
  }

  protected entryOf(labels: Labels<L> | undefined): Entry {
    const names = this.labelNames;
    if (names.length === 0) {
      this.#unlabelled ??= this.#add(labels);
      return this.#unlabelled;
    }
    let level = this.#tree;
    const last = names.length - 1;
    for (let at = 0; at < last; at++) {
      const value = labels?.[names[at] as L];
      let next = level.get(value) as SeriesTree<Entry> | undefined;
      if (!next) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = labels?.[names[last] as L];
    let entry = level.get(value) as Entry | undefined;
    if (!entry) {
      entry = this.#add(labels);
      level.set(value, entry);
    }
    return entry;
  }

  #add(labels: Labels<L> | undefined): Entry {
    const entry = this.create();
    this.series.push({ labels: this.ownLabels(labels), entry });
    return entry;
  }

  /** A copy with the label names only: the caller's object may carry more, or change. */
  private ownLabels(labels: Labels<L> | undefined): Labels<L> {
    const own = {} as Record<L, string>;
    for (const name of this.labelNames) own[name] = String(labels?.[name]);
    return own;
  }

  reset(): void {
    this.series.length = 0;
    this.#tree = new Map();
    this.#unlabelled = undefined;
  }
}

export class SeriesCounter<L extends string = never> extends Series<L, { value: number }> {
  readonly type = 'counter';

  protected create() {
    return { value: 0 };
  }

  inc(labels?: Labels<L>, by = 1): void {
    this.entryOf(labels).value += by;
  }

  async get() {
    const values: { labels: Record<string, string>; value: number }[] = this.series.map(
      ({ labels, entry }) => ({
        labels,
        value: entry.value,
      }),
    );
    // A counter without labels reads 0 before its first count, as prom-client's does.
    if (this.labelNames.length === 0 && values.length === 0) values.push({ labels: {}, value: 0 });
    return this.withValues(values);
  }
}

/** prom-client's default buckets, in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class SeriesHistogram<L extends string> extends Series<
  L,
  { counts: number[]; sum: number; count: number }
> {
  readonly type = 'histogram';

  protected create() {
    return { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
  }

  observe(labels: Labels<L>, value: number): void {
    const entry = this.entryOf(labels);
    const bucket = BUCKETS.findIndex((bound) => value <= bound);
    if (bucket >= 0) entry.counts[bucket] = (entry.counts[bucket] ?? 0) + 1;
    entry.sum += value;
    entry.count += 1;
  }

  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] =
      [];
    for (const { labels, entry } of this.series) {
      let cumulative = 0;
      BUCKETS.forEach((bound, index) => {
        cumulative += entry.counts[index] ?? 0;
        values.push({
          labels: { ...labels, le: bound },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      });
      values.push({
        labels: { ...labels, le: '+Inf' },
        value: entry.count,
        metricName: `${this.name}_bucket`,
      });
      values.push({ labels, value: entry.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: entry.count, metricName: `${this.name}_count` });
    }
    return this.withValues(values);
  }
}
