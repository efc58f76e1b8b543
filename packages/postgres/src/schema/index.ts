export * from './accounts.js';
export * from './chatbots.js';
export * from './conversations.js';
export * from './digest.js';
export * from './jobs.js';
export * from './sql-keys.js';
export * from './alerts.js';
export * from './privacy.js';
