export * from './types.js';
export * from './errors.js';
export { createEventBus } from './create.js';
export { createKafkaBus, type KafkaBusOptions } from './kafka/bus.js';
export { DEFAULT_TIMEOUTS as DEFAULT_KAFKA_TIMEOUTS, type KafkaTimeouts } from './kafka/client.js';
export { createEmbeddedBus, EMBEDDED_BATCH_DEFAULTS, type EmbeddedBusOptions, type EmbeddedEventBus } from './embedded/bus.js';
export type { Retention } from './embedded/log.js';
export type { BackoffOptions } from './delivery.js';
