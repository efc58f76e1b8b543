export * from './prng.js';
export * from './time.js';
export * from './currency.js';
export * from './generate-events.js';
export * from './generate-conversations.js';
