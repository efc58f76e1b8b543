import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Errors } from '../errors.js';
import { errorResponses } from '../schemas/common.js';

const ASSETS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../assets');
const require = createRequire(import.meta.url);

/**
 * The app pages' files, read once at start-up and served from memory: the chart library from
 * its npm package (no CDN: the dashboard works offline and under its CSP), the pages' own
 * script and style sheet, and the icon.
 */
function loadAssets(): Map<string, { type: string; body: Buffer }> {
  const own = (name: string) => readFileSync(path.join(ASSETS_DIR, name));
  return new Map([
    ['app.css', { type: 'text/css; charset=utf-8', body: own('app.css') }],
    ['app.js', { type: 'text/javascript; charset=utf-8', body: own('app.js') }],
    ['uplot.min.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js')) }],
    ['uplot.min.css', { type: 'text/css; charset=utf-8', body: readFileSync(require.resolve('uplot/dist/uPlot.min.css')) }],
    ['favicon.svg', { type: 'image/svg+xml', body: own('favicon.svg') }],
  ]);
}

const files = loadAssets();
const versions = new Map([...files].map(([name, f]) => [name, createHash('sha256').update(f.body).digest('hex').slice(0, 12)]));

/** A file's URL with its content digest: cached for a day, and a changed file gets a new URL. */
export function assetUrl(name: string): string {
  const version = versions.get(name);
  if (!version) throw new Error(`unknown asset ${name}`);
  return `/assets/${name}?v=${version}`;
}

export const appAssets: FastifyPluginAsyncTypebox = async (app) => {
  const send = (name: string) => {
    const file = files.get(name);
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
