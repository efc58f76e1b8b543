/**
 * Builds /tracker.js (dist/tracker.min.js) from src/script.ts: `npm run build -w @chatlytics/tracker`.
 * The built file is checked in; test/build.test.ts fails when it differs from a fresh build.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const TRACKER_DIST = fileURLToPath(new URL('../dist/tracker.min.js', import.meta.url));

export async function buildTrackerScript(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('../src/script.ts', import.meta.url))],
    bundle: true,
    minify: true,
    format: 'iife',
    // Browsers with fetch keepalive and optional chaining; Web Locks is used when present.
    target: ['es2020'],
    write: false,
    legalComments: 'none',
    // Plain assignments in constructors: no defineProperty helper in a size-budgeted script.
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: false } },
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(TRACKER_DIST, await buildTrackerScript());
  console.log(`wrote ${TRACKER_DIST}`);
}
