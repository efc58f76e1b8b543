import path from 'node:path';
import type { Config, Logger, Registry } from '@chatlytics/core';
import type { EventBus } from './types.js';
import { createKafkaBus } from './kafka/bus.js';
import { createEmbeddedBus } from './embedded/bus.js';

/**
 * The bus the configuration asks for (see the configuration table in README.md): Kafka when KAFKA_BROKERS is set, else
 * the embedded durable log in DATA_DIR/bus. Async because the embedded log recovers its
 * files on open; the Kafka bus connects lazily.
 */
export async function createEventBus(config: Config, log: Logger, registry?: Registry): Promise<EventBus> {
  if (config.kafka.brokers?.length) return createKafkaBus({ kafka: config.kafka, log, registry });
  return createEmbeddedBus({ dir: path.join(config.dataDir, 'bus'), log: log.child({ component: 'bus', bus: 'embedded' }), registry });
}
