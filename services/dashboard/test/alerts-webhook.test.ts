import t from 'tap';
import http from 'node:http';
import { pino } from 'pino';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { alerts as alertsTable, alertTransitions, jobs } from '@chatlytics/postgres';
import { checkWebhookUrl, guardedLookup, isPublicAddress } from '../src/alerts/webhook-target.js';
import { sendWebhook } from '../src/alerts/webhook-send.js';
import { WebhookPermanentError } from '../src/http/errors.js';
import { createJobQueue as createWebhookDeliveryRepository } from '../src/jobs/queue.js';
import { createWebhookWorker, WEBHOOK_JOB } from '../src/alerts/webhook-job.js';
import { importFixture } from '../src/fixtures/import.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { IDS, testFixture } from './fixture.js';

/** The webhook's SSRF rule, its HTTP call (timeout, no redirects) and its durable retry queue. */

t.test('isPublicAddress: loopback, private, link-local, unique-local, CGNAT, multicast, unspecified are refused', async (t) => {
  for (const ip of [
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.254',
    '0.0.0.0', '224.0.0.1', '239.255.255.250', '255.255.255.255', '192.0.2.1', '198.18.0.1',
    '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', '2001:db8::1',
  ]) t.notOk(isPublicAddress(ip), `${ip} refused`);
  for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.ok(isPublicAddress(ip), `${ip} allowed`);
  t.notOk(isPublicAddress('not-an-ip'));
});

/** IPv6 forms that carry or tunnel to another address, one row per range: each refused where it leads inside, allowed where it leads to a public IPv4 only if the network delivers there. */
t.test('isPublicAddress: IPv6 forms that embed or tunnel to an IPv4 address', async (t) => {
  const table: [string, boolean, string][] = [
    ['::127.0.0.1', false, 'IPv4-compatible ::/96 (deprecated)'],
    ['::7f00:1', false, 'the same, as the URL parser writes it'],
    ['::8.8.8.8', false, 'IPv4-compatible, even to a public address: no network delivers it'],
    ['::ffff:0:127.0.0.1', false, 'IPv4-translated ::ffff:0:0/96 to loopback'],
    ['::ffff:0:808:808', true, 'IPv4-translated to a public address'],
    ['2002:7f00:1::1', false, '6to4 2002::/16 to loopback'],
    ['2002:a9fe:a9fe::', false, '6to4 to the metadata service'],
    ['2002:0a00:0001:1::5', false, '6to4 to 10.0.0.1'],
    ['2002:808:808::1', true, '6to4 to a public address'],
    ['64:ff9b::127.0.0.1', false, 'NAT64 64:ff9b::/96 to loopback'],
    ['64:ff9b::808:808', true, 'NAT64 to a public address'],
    ['64:ff9b:1::808:808', false, 'local-use NAT64 64:ff9b:1::/48'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false, 'Teredo 2001::/32'],
    ['2001:2::1', false, 'benchmarking 2001:2::/48'],
    ['2001:10::1', false, 'ORCHID 2001:10::/28'],
    ['3fff::1', false, 'documentation 3fff::/20'],
    ['2001:4860:4860::8888', true, 'a public address outside 2001::/23'],
  ];
  for (const [ip, allowed, why] of table) t.equal(isPublicAddress(ip), allowed, `${ip}: ${why}`);
  for (const url of ['http://[::127.0.0.1]/', 'http://[2002:7f00:1::1]/', 'http://[64:ff9b::7f00:1]/', 'http://[2001::1]/', 'http://[64:ff9b:1::1]/']) {
    t.equal(checkWebhookUrl(url, false).ok, false, `${url} refused at creation`);
  }
});

t.test('checkWebhookUrl: http(s) only, no credentials, no literal private host unless allowed', async (t) => {
  for (const [url, why] of [
    ['ftp://example.com/x', /http or https/], ['file:///etc/passwd', /http or https/], ['not a url', /absolute/],
    ['https://user:pw@example.com/', /credentials/], ['http://localhost:8080/', /loopback or private/], ['http://api.localhost/', /loopback or private/],
    ['http://127.0.0.1/', /loopback or private/], ['http://[::1]:9000/', /loopback or private/], ['http://169.254.169.254/latest/meta-data', /loopback or private/],
    ['http://10.0.0.5/hook', /loopback or private/],
  ] as const) {
    const r = checkWebhookUrl(url, false);
    t.equal(r.ok, false, url);
    if (!r.ok) t.match(r.message, why);
  }
  t.equal(checkWebhookUrl('https://hooks.example.com/x?token=1', false).ok, true);
  t.equal(checkWebhookUrl('http://127.0.0.1:9000/', true).ok, true, 'ALERT_WEBHOOK_ALLOW_PRIVATE=true');
  t.equal(checkWebhookUrl('ftp://127.0.0.1/', true).ok, false, 'still http(s) only');
});

t.test('guardedLookup refuses a name that resolves to a loopback address (what the socket would connect to)', async (t) => {
  const err = await new Promise<Error | null>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
  t.match(err?.message, /resolves to a loopback or private address/);
});

async function receiver(t: { teardown(fn: () => unknown): void }, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const hits: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => { hits.push({ headers: req.headers, body }); answer(req, res); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { hits, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

t.test('sendWebhook: signed JSON POST; loopback refused unless allowed; redirects not followed; 5 s timeout', async (t) => {
  const ok = await receiver(t, (req, res) => res.writeHead(req.url === '/redirect' ? 302 : 200, req.url === '/redirect' ? { location: '/landing' } : {}).end());
  const req = { url: `${ok.url}/hook`, body: '{"a":1}', signature: 'sha256=abc' };
  await t.rejects(sendWebhook(req, { allowPrivate: false }), WebhookPermanentError, 'a loopback target is refused without ALERT_WEBHOOK_ALLOW_PRIVATE');
  t.equal(ok.hits.length, 0, 'and nothing reached it');
  t.equal(await sendWebhook(req, { allowPrivate: true }), 200);
  t.equal(ok.hits[0].headers['x-chatlytics-signature'], 'sha256=abc');
  t.equal(ok.hits[0].headers['content-type'], 'application/json');
  t.equal(ok.hits[0].body, '{"a":1}');
  await t.rejects(sendWebhook({ ...req, url: `${ok.url}/redirect` }, { allowPrivate: true }), /answered 302/);
  t.equal(ok.hits.length, 2, 'the redirect target was not requested');
  await t.rejects(sendWebhook({ ...req, url: `http://localhost:${new URL(ok.url).port}/` }, { allowPrivate: false }), WebhookPermanentError, 'a name for loopback is refused');

  const silent = await receiver(t, () => { /* never answers */ });
  const started = Date.now();
  await t.rejects(sendWebhook({ ...req, url: silent.url }, { allowPrivate: true, timeoutMs: 300 }), /timed out after 300 ms/);
  t.ok(Date.now() - started < 3_000);
});

for (const variant of databaseVariants()) {
  t.test(`webhook queue: retried with backoff 10 s × 2^n up to 6 attempts, then failed (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    const { db } = tdb.postgres;
    await importFixture(db, testFixture(), { passwordCost: TEST_SCRYPT_COST });
    const [alert] = await db.insert(alertsTable).values({ chatbotId: IDS.alpha, kind: 'silence', windowMinutes: 1, secret: 'whsec_x', webhookUrl: 'http://x' }).returning();
    const [tr] = await db.insert(alertTransitions).values({ alertId: alert.id, state: 'firing', value: 0, at: new Date() }).returning();
    let now = new Date('2026-03-01T12:00:00.000Z');
    const [row] = await db.insert(jobs).values({ kind: WEBHOOK_JOB, payload: { alertId: alert.id, transitionId: tr.id, url: 'http://x', body: '{}', signature: 's' }, runAt: now }).returning();
    const deliveries = createWebhookDeliveryRepository({ db });
    let calls = 0;
    let failUntil = 2;
    const worker = createWebhookWorker({
      deliveries, log: pino({ level: 'silent' }), allowPrivate: false, clock: () => now,
      send: async () => { calls++; if (calls <= failUntil) throw new Error(`answered 500 (#${calls})`); },
    });
    t.equal(await worker.runDue(), 1);
    let d = (await deliveries.find(row.id))!;
    t.match(d, { status: 'pending', attempts: 1, lastError: /answered 500/ });
    t.equal(d.runAt.getTime() - now.getTime(), 10_000, 'first retry after 10 s');
    t.equal(await worker.runDue(), 0, 'not due before then');
    now = new Date(now.getTime() + 10_000);
    await worker.runDue();
    d = (await deliveries.find(row.id))!;
    t.equal(d.runAt.getTime() - now.getTime(), 20_000, 'second retry after 20 s');
    now = new Date(now.getTime() + 20_000);
    await worker.runDue();
    d = (await deliveries.find(row.id))!;
    t.match(d, { status: 'sent', attempts: 3, lastError: null });

    // Always failing: 6 attempts (10+20+40+80+160 s between them), then failed.
    const [row2] = await db.insert(jobs).values({ kind: WEBHOOK_JOB, payload: { alertId: alert.id, transitionId: tr.id, url: 'http://x', body: '{}', signature: 's' }, runAt: now }).returning();
    failUntil = Infinity;
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      await worker.runDue();
      d = (await deliveries.find(row2.id))!;
      if (d.status !== 'pending') break;
      waits.push(d.runAt.getTime() - now.getTime());
      now = d.runAt;
    }
    t.same(waits, [10_000, 20_000, 40_000, 80_000, 160_000]);
    t.match(d, { status: 'failed', attempts: 6 });
  });
}
