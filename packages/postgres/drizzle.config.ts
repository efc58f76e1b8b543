import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate --config packages/postgres/drizzle.config.ts` after a schema change;
// the generated SQL is checked in and applied by `Postgres.migrate()` on both drivers.
export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/postgres/src/schema/*.ts',
  out: './packages/postgres/migrations',
});
