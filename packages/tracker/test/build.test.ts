import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { buildTrackerScript, TRACKER_DIST } from '../scripts/build.js';
import { trackerScript } from '../src/asset.js';

/**
 * The size budget of /tracker.js: what a shop's page pays for it, compressed. 3 KiB, plus 64
 * bytes for the page URL and referrer sent with each `visitor` (the traffic source), plus 64
 * for the holdout hook (`inHoldout()` and the `chatlytics:holdout` event).
 */
const BUDGET_GZIP_BYTES = 3 * 1024 + 64 + 64;

t.test('the checked-in script is the build of the current source', async (t) => {
  const built = await buildTrackerScript();
  t.ok(built === fs.readFileSync(TRACKER_DIST, 'utf8'), 'dist/tracker.min.js is stale: run `npm run build -w @chatlytics/tracker`');
});

t.test(`tracker.js stays within ${BUDGET_GZIP_BYTES} bytes min+gzip, with no dependency`, async (t) => {
  const { code } = trackerScript();
  const gzipped = gzipSync(code, { level: 9 }).length;
  t.comment(`tracker.js: ${code.length} bytes minified, ${gzipped} gzipped`);
  t.ok(gzipped <= BUDGET_GZIP_BYTES, `${gzipped} bytes`);
  t.notMatch(code.toString(), /\brequire\(|\bimport\b/, 'one self-contained script');
});

t.test('the asset: a strong ETag of the content', async (t) => {
  const a = trackerScript();
  t.match(a.etag, /^"[A-Za-z0-9_-]{22}"$/);
  t.equal(trackerScript().etag, a.etag);
});
