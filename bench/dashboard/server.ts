/**
 * The servers of the dashboard bench (api.ts), each in its own child process
 * (`node --import=tsx server.ts <spec as JSON>`, spoken to as bench/lib/child.ts says): the
 * dashboard plugin on PGlite or a PostgreSQL server, or the baseline, a bare Fastify app
 * answering each route with the dashboard's own response body.
 */
import fs from 'node:fs';
import Fastify from 'fastify';
import { serveChild } from '../lib/child.js';

/** Which server, and its data. */
export type ServeSpec =
  | { kind: 'dashboard'; dataDir: string; databaseUrl?: string }
  /** The dashboard's response bodies by URL, in a JSON file (too large for argv). */
  | { kind: 'baseline'; bodiesFile: string };

async function serve(spec: ServeSpec): Promise<void> {
  // Start-up is not measured; on a busy 2-core machine plugins can exceed avvio's 10 s default.
  const app = Fastify({ logger: false, pluginTimeout: 120_000 });
  let closeStore = async () => {};
  if (spec.kind === 'baseline') {
    // Parsed, not pre-serialised: the baseline pays for JSON serialisation like the dashboard does.
    const bodies = JSON.parse(fs.readFileSync(spec.bodiesFile, 'utf8')) as Record<string, unknown>;
    for (const [url, body] of Object.entries(bodies)) app.get(url, async () => body);
  } else {
    const { loadConfig, createLogger } = await import('@chatlytics/core');
    const { createPostgres } = await import('@chatlytics/postgres');
    const { dashboardApp } = await import('@chatlytics/dashboard');
    const config = loadConfig({ DATA_DIR: spec.dataDir, DATABASE_URL: spec.databaseUrl, SESSION_SECRET: 'bench-session-secret'.padEnd(40, 'x') });
    const log = createLogger('warn', 'bench-dashboard');
    const postgres = await createPostgres({ databaseUrl: spec.databaseUrl, dataDir: spec.dataDir, log });
    closeStore = () => postgres.close();
    await app.register(dashboardApp, { config, postgres, log });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  serveChild({
    port: typeof address === 'object' && address ? address.port : 0,
    close: async () => { await app.close(); await closeStore(); },
  });
}

// An entry file: the parent imports its ServeSpec type alone.
if (!process.argv[2]) {
  console.error('usage: server.ts <spec as JSON>');
  process.exit(2);
}
await serve(JSON.parse(process.argv[2]) as ServeSpec);
