/**
 * The live view says when recent requests were filtered as bots (issue 58): requests with a bot's
 * or a script's User-Agent (Node.js's own "node") are left out of the events per minute, and the
 * live-events statistic's `bot_requests` and the page's note count them.
 */
import t from 'tap';
import { normalizeEvent, validateTrackingBody } from '@chatlytics/events';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { ANN, IDS, KEY, NOW, digestWorld, loginCookie, openDigestClickHouse } from './digest-harness.js';
import { insertEvents } from './stats-fixtures.js';

const ch = await openDigestClickHouse(t);
const pglite = databaseVariants().find((v) => v.name === 'pglite')!;
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** A visit as the ingest stores it, sent with this User-Agent `minutesAgo` before the clock's now. */
function visit(userAgent: string, token: string, minutesAgo: number) {
  const v = validateTrackingBody({ event: 'visitor', token, data: { chatbot_id: IDS.botB } });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return normalizeEvent(v.value, { receivedAt: new Date(NOW - minutesAgo * 60_000), userAgentHeader: userAgent, log: { warn: () => undefined } });
}

t.test('bot requests of the last 30 minutes: counted apart and said on the live view', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build({ alerts: { evaluateIntervalMs: 0 } });
  const cookie = await loginCookie(app, ANN);
  const live = async () => {
    const res = await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/live-events?chatbot_id=${IDS.botB}`, headers: { authorization: `Bearer ${KEY}` } });
    t.equal(res.statusCode, 200);
    const body = res.json() as { minutes: { events: number }[]; bot_requests: number };
    return { events: body.minutes.reduce((s, m) => s + m.events, 0), bots: body.bot_requests };
  };
  const before = await live();
  t.type(before.bots, 'number', 'bot_requests is answered');

  const sent = [visit('node', 'node-test-1', 2), visit('node', 'node-test-2', 3), visit('node', 'node-test-3', 10), visit(BROWSER, 'browser-1', 4),
    // Outside the 30 minutes: neither counted nor said.
    visit('node', 'node-old', 45)];
  t.same(sent.map((e) => e.is_bot), [true, true, true, false, true], 'Node.js\'s User-Agent is classified a bot');
  await insertEvents(ch, sent);

  const after = await live();
  t.same(after, { events: before.events + 1, bots: before.bots + 3 }, 'the browser\'s visit counts, the three recent Node.js requests are counted apart');

  const page = await app.inject({ method: 'GET', url: `/app/${IDS.botB}/live`, headers: { cookie, accept: 'text/html' } });
  t.equal(page.statusCode, 200);
  const note = /<p class="banner bot-note" id="live-bots" data-bot-requests="(\d+)" aria-live="polite"( hidden)?>([^<]*)<\/p>/.exec(page.body);
  t.ok(note, 'the page has the note');
  t.equal(Number(note![1]), after.bots, 'the API\'s count');
  t.notOk(note![2], 'shown: there are bot requests');
  t.equal(note![3], `${after.bots} requests in the last 30 minutes came from bots or scripts (e.g. a Node.js test) and are not counted.`);

  // botA's 30 minutes: no note shown (the fixture's crawlers are older), the element kept for the refresh.
  const quiet = await app.inject({ method: 'GET', url: `/app/${IDS.botA}/live`, headers: { cookie, accept: 'text/html' } });
  const quietNote = /data-bot-requests="(\d+)" aria-live="polite"( hidden)?>/.exec(quiet.body);
  t.ok(quietNote, 'the note element is on every live view');
  t.equal(quietNote![2] !== undefined, Number(quietNote![1]) === 0, 'hidden exactly when there is no bot request');
});
