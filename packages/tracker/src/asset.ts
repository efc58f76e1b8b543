/** Node only: the built /tracker.js, for the server that serves it. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

export interface TrackerAsset {
  code: Buffer;
  /** A strong validator: the content's hash, quoted. */
  etag: string;
}

let cached: TrackerAsset | undefined;

/** The minified script (dist/tracker.min.js, kept equal to a fresh build by a test), read once. */
export function trackerScript(): TrackerAsset {
  if (!cached) {
    const code = fs.readFileSync(new URL('../dist/tracker.min.js', import.meta.url));
    cached = { code, etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 22)}"` };
  }
  return cached;
}
