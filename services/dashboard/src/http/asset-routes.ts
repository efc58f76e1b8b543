import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Errors } from './errors.js';
import { errorResponses } from './schemas.js';
import { assetFile } from '../html/assets.js';

/** /assets/:name and the icon: the app pages' files (assets.ts), from memory, cached for a day. */
export const appAssets: FastifyPluginAsyncTypebox = async (app) => {
  const send = (name: string) => {
    const file = assetFile(name);
    if (!file) throw Errors.routeNotFound();
    return file;
  };
  const schema = (summary: string) => ({
    tags: ['pages'], summary, response: { 200: Type.Unsafe<Buffer>({ type: 'string', description: 'File' }), ...errorResponses(404) },
  });

  app.get('/assets/:name', {
    schema: { ...schema('Script, style sheet and chart library of the app pages'), params: Type.Object({ name: Type.String({ maxLength: 64 }) }) },
  }, async (req, reply) => {
    const file = send(req.params.name);
    return reply.type(file.type).header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').send(file.body);
  });

  // Browsers ask for /favicon.ico whatever the page links; both names answer the SVG.
  for (const url of ['/favicon.svg', '/favicon.ico']) {
    app.get(url, { schema: schema('The icon') }, async (_req, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(send('favicon.svg').body));
  }
};
