import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process; every module registers its own metrics on it. */
export function createMetricsRegistry(prefix = 'chatlytics_'): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  return registry;
}
export { Registry };

export interface MetricSpec<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

/**
 * Get-or-create: a process may build an app more than once on one registry (tests, replays,
 * restarts of a plugin), and prom-client refuses a second metric with the same name.
 */
export function counterOn<L extends string = never>(registry: Registry, spec: MetricSpec<L>): Counter<L> {
  return (registry.getSingleMetric(spec.name) as Counter<L> | undefined)
    ?? new Counter<L>({ ...spec, registers: [registry] });
}

/** Get-or-create, as counterOn. */
export function histogramOn<L extends string = never>(
  registry: Registry,
  spec: MetricSpec<L> & { buckets: number[] },
): Histogram<L> {
  return (registry.getSingleMetric(spec.name) as Histogram<L> | undefined)
    ?? new Histogram<L>({ ...spec, registers: [registry] });
}
