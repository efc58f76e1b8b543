import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** A file of the app pages by name, or undefined. */
export const assetFile = (name: string) => files.get(name);
const versions = new Map([...files].map(([name, f]) => [name, createHash('sha256').update(f.body).digest('hex').slice(0, 12)]));

/** A file's URL with its content digest: cached for a day, and a changed file gets a new URL. */
export function assetUrl(name: string): string {
  const version = versions.get(name);
  if (!version) throw new Error(`unknown asset ${name}`);
  return `/assets/${name}?v=${version}`;
}
