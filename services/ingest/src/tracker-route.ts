import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { trackerScript } from '@chatlytics/tracker/asset';

/**
 * Five minutes fresh, then revalidated in the background for a day: shops embed one unversioned
 * URL, so a release must reach pages within minutes, while a revalidation costs a 304.
 */
export const TRACKER_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=86400';

const matches = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));

/** GET /tracker.js: the embeddable script (packages/tracker), minified, with an ETag. */
export function registerTrackerScriptRoute(app: FastifyInstance): void {
  const { code, etag } = trackerScript();
  app.get('/tracker.js', {
    // Loading the script is not tracking: it must not spend the visitor's tracking budget.
    config: { rateLimit: false },
    schema: {
      tags: ['tracking'],
      summary: 'The tracker script',
      description: 'Embed with `<script async src="…/tracker.js" data-chatbot-id="…"></script>`. Cache-Control and a strong ETag; If-None-Match answers 304.',
      response: {
        200: { type: 'string', description: 'The minified script (text/javascript)' },
        304: { type: 'null', description: 'The cached copy is current' },
      },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', TRACKER_CACHE_CONTROL).header('etag', etag);
    if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(code);
  });
}
