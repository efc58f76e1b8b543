export * from './schema/index.js';
export * from './types.js';
export { createPostgres, MIGRATIONS_FOLDER, type PostgresOptions } from './postgres.js';
