export * from './templates.js';
export * from './transport.js';
export * from './job-repository.js';
export * from './worker.js';
