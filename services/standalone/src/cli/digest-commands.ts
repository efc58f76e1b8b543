import { resolveSessionSecret } from '@chatlytics/core';
import { buildDigestService, createChatbotRepository, createMailTransport } from '@chatlytics/dashboard';
import { createStatsService } from '@chatlytics/dashboard/stats';
import { withEngines } from './data-commands.js';
import { UsageError } from './args.js';
import type { CommandContext } from './context.js';

/**
 * `digest:send --email E`: the user's weekly digest now (the 7 UTC days ending yesterday against
 * the 7 before), through the configured transport (Resend, else DATA_DIR/mail-outbox), with the
 * same code the weekly job runs. It does not count as the week's digest.
 */
export function sendDigest(ctx: CommandContext, email: string) {
  return withEngines(ctx, {}, async ({ postgres, clickhouse }) => {
    const clock = () => new Date();
    const { db } = postgres;
    const digests = buildDigestService({
      config: ctx.config, db, clock, log: ctx.log,
      // Statistics cache off: a one-off read.
      stats: createStatsService({ clickhouse, db, appUrl: ctx.config.appUrl, clock, cacheTtlMs: 0 }),
      chatbots: createChatbotRepository({ db }),
      secret: resolveSessionSecret(ctx.config.sessionSecret, ctx.config.dataDir),
      transport: createMailTransport(ctx.config, ctx.log),
    });
    const sent = await digests.sendNow(email);
    if (!sent) throw new UsageError(`no user with e-mail ${email}`);
    return { sent };
  });
}
