export * from './config.js';
export * from './logger.js';
export * from './errors.js';
export * from './metrics.js';
export * from './data-dir-lock.js';
export * from './ops-plugin.js';
export * from './session-secret.js';
export * from './time.js';
