import { Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process; every module registers its own metrics on it. */
export function createMetricsRegistry(prefix = 'chatlytics_'): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  return registry;
}
export { Registry };
