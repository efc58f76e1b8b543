export * from './engines.js';
export * from './standalone-app.js';
