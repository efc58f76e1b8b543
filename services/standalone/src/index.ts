export * from './engines.js';
export * from './standalone-app.js';
// The demo data and the event backfill the CLI's `demo` uses, for benchmarks that load the same data.
export { buildDemoFixture } from './cli/demo-fixture.js';
export { backfillEvents, type BackfillInput } from './cli/backfill.js';
