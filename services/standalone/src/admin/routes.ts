import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config, Logger } from '@chatlytics/core';
import type { Postgres } from '@chatlytics/postgres';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { EventBus } from '@chatlytics/bus';
import { DashboardError, dashboardErrorHandler, dashboardValidatorCompiler, digestsEqual, errorResponses, sha256Hex } from '@chatlytics/dashboard';
import { USAGE, parseCommand, type CommandName } from '../cli/spec.js';
import { runCommand } from '../cli/commands.js';
import { AdminErrors, REMOTE_REFUSED } from './errors.js';

export interface AdminCliOptions {
  config: Config;
  log: Logger;
  stores: { postgres: Postgres; clickhouse: ClickHouseEngine; bus: EventBus };
  /** The credential of this start (endpoint-file.ts); compared by digest in constant time. */
  credential: string;
}

const REMOTE_COMMANDS = (Object.keys(USAGE) as CommandName[]).filter((c) => !REMOTE_REFUSED.has(c));

const Body = Type.Object({
  command: Type.Union(REMOTE_COMMANDS.map((c) => Type.Literal(c))),
  argv: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 64, description: "The command's arguments as typed; file paths absolute" }),
}, { additionalProperties: false });

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * POST /api/admin/cli: `npm run cli -- …` while `npm start` holds DATA_DIR. The CLI cannot open
 * the embedded stores then (one writer each), so it sends its command here and the server runs
 * the very same command code (src/cli) on its own open stores. Only a loopback caller holding
 * this start's admin credential gets in: the command acts on every account.
 */
export const adminCliRoutes: FastifyPluginAsyncTypebox<AdminCliOptions> = async (app, opts) => {
  const digest = sha256Hex(opts.credential);
  app.setValidatorCompiler(dashboardValidatorCompiler);
  app.setErrorHandler(dashboardErrorHandler);
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!LOOPBACK.has(req.socket.remoteAddress ?? '') || !match || !digestsEqual(sha256Hex(match[1]), digest)) throw AdminErrors.unauthenticated();
    // A demo import outlasts the idle-connection timeout (HTTP_IDLE_TIMEOUT_MS) with nothing sent meanwhile.
    req.raw.socket.setTimeout(0);
  });

  app.post('/cli', {
    schema: {
      tags: ['admin'],
      summary: 'Run an admin CLI command in the running server (local admin credential from DATA_DIR)',
      security: [{ adminCredential: [] }],
      body: Body,
      response: {
        200: Type.Object({ success: Type.Literal(true), data: Type.Unknown({ description: 'What the CLI prints' }) }),
        ...errorResponses(400, 401, 415, 422, 500),
      },
    },
  }, async (req) => {
    try {
      const input = parseCommand(req.body.command, req.body.argv);
      return { success: true as const, data: await runCommand(input, { config: opts.config, log: opts.log, stores: opts.stores }) };
    } catch (err) {
      throw asAdminError(err);
    }
  });
};

/** The CLI's own refusals (usage, fixture, replay arguments) keep their message; anything else is a 500. */
function asAdminError(err: unknown): unknown {
  if (err instanceof DashboardError) return err;
  const e = err as Error & { problems?: string[]; statusCode?: number };
  if (e?.name === 'UsageError' || e?.statusCode === 400) return AdminErrors.refused(e.message);
  if (e?.name === 'FixtureError') return AdminErrors.invalidFixture(e.problems ?? []);
  return err;
}
