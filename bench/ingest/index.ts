/**
 * `npm run bench:ingest`: the tracking route's scenarios (scenarios.ts, with the all-in-one sweep
 * of allinone.ts), then the batch route against the single route (batch.ts).
 */
import { sequence } from '../lib/bench.js';
import batch from './batch.js';
import scenarios from './scenarios.js';

export default sequence('The tracking route against a bare Fastify route (embedded log, Kafka, no bus, npm start\'s process), then the batch route against the single route.', scenarios, batch);
