export * from './account-repository.js';
export * from './chatbot-repository.js';
export * from './credential-repository.js';
export * from './data-source-repository.js';
export * from './search-repository.js';
export * from './session-repository.js';
export * from './user-repository.js';
export * from './sql-key-repository.js';
