export * from './engines.js';
export * from './standalone-app.js';
// The demo data and the import the CLI's `demo` uses, for benchmarks that load the same data.
export { buildDemoFixture } from './cli/demo-fixture.js';
export { importIntoEngines, type ImportIntoEnginesOptions } from './cli/import-into-engines.js';
