export * from './account-repository.js';
export * from './credential-repository.js';
export * from './session-repository.js';
export * from './user-repository.js';
export * from './sql-key-repository.js';
export * from './login-failure-repository.js';
