import t from 'tap';
import fc from 'fast-check';
import { formatDate, formatDateTimeMinutes, formatDateTimeSeconds, timeAgo } from '../src/html/time.js';
import { RAW_CONTENT_PREVIEW_CHARS, truncateRawContent } from '../src/data-sources/raw-content.js';

t.test('date formats are UTC and zero-padded', async (t) => {
  const d = new Date('2026-01-05T03:04:09.999Z');
  t.equal(formatDate(d), '2026-01-05');
  t.equal(formatDateTimeMinutes(d), '2026-01-05 03:04');
  t.equal(formatDateTimeSeconds(d), '2026-01-05 03:04:09');
  t.equal(formatDateTimeSeconds(new Date('2025-12-31T23:59:59Z')), '2025-12-31 23:59:59');
});

t.test('timeAgo: "just now", then the largest whole unit, singular or plural', async (t) => {
  const now = new Date('2026-03-01T12:00:00Z');
  const before = (ms: number) => new Date(now.getTime() - ms);
  const S = 1000, M = 60 * S, H = 60 * M, D = 24 * H;
  const cases: [number, string][] = [
    [0, 'just now'], [59 * S, 'just now'], [M, '1 minute ago'], [5 * M + 59 * S, '5 minutes ago'], [59 * M, '59 minutes ago'],
    [H, '1 hour ago'], [2 * H + 30 * M, '2 hours ago'], [23 * H, '23 hours ago'], [D, '1 day ago'], [3 * D, '3 days ago'],
    [6 * D, '6 days ago'], [7 * D, '1 week ago'], [29 * D, '4 weeks ago'], [30 * D, '1 month ago'], [364 * D, '12 months ago'],
    [365 * D, '1 year ago'], [3 * 365 * D, '3 years ago'],
  ];
  for (const [ms, expected] of cases) t.equal(timeAgo(before(ms), now), expected, `${ms} ms`);
  t.equal(timeAgo(new Date(now.getTime() + 10 * M), now), 'just now', 'a future time (clock skew) reads "just now"');
  fc.assert(fc.property(fc.integer({ min: 60_000, max: 50 * 365 * D }), (ms) => /^[1-9][0-9]* (minute|hour|day|week|month|year)s? ago$/.test(timeAgo(before(ms), now))));
});

t.test('truncateRawContent: up to 51200 characters untouched', async (t) => {
  t.equal(RAW_CONTENT_PREVIEW_CHARS, 51_200);
  t.equal(truncateRawContent(''), '');
  const exact = 'x'.repeat(51_200);
  t.equal(truncateRawContent(exact), exact);
  const astral = '😀'.repeat(51_200);
  t.equal(truncateRawContent(astral), astral, '51,200 emoji are 102,400 UTF-16 units but 51,200 characters');
});

t.test('truncateRawContent: cut on a character boundary with the note', async (t) => {
  t.equal(truncateRawContent('x'.repeat(51_201)), `${'x'.repeat(51_200)}\n[truncated: showing 51200 of 51201 characters]`);
  const s = 'a'.repeat(51_199) + '😀😀' + 'é';
  t.equal(truncateRawContent(s), `${'a'.repeat(51_199)}😀\n[truncated: showing 51200 of 51202 characters]`, 'the emoji is kept whole');
  t.equal(truncateRawContent('abcdef', 3), 'abc\n[truncated: showing 3 of 6 characters]');
  fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (str, limit) => {
    const chars = [...str];
    const out = truncateRawContent(str, limit);
    if (chars.length <= limit) return out === str;
    return out === `${chars.slice(0, limit).join('')}\n[truncated: showing ${limit} of ${chars.length} characters]`;
  }));
});
