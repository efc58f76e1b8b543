import t from 'tap';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants, type TestDatabase } from '@chatlytics/postgres/testing';
import {
  TEST_SCRYPT_COST, createAlertEvaluator, createAlertFigures, createAlertRepository, createJobQueue as createWebhookDeliveryRepository, createWebhookWorker, importFixture,
} from '@chatlytics/dashboard';
import { buildStandalone } from '../src/index.js';

/**
 * Chat-health alerts end to end, on the real pipeline: a `silence` alert with a 1-minute window
 * on a chatbot that receives nothing fires to a local webhook receiver with a valid signature;
 * one tracked event (ingest → bus → consumer → ClickHouse) resolves it, and it fires again once
 * that event has left the window: the evaluators' clock moves a minute ahead instead of the test
 * waiting for it (the event keeps its real time). A second
 * evaluator and webhook worker run against the same database without the advisory lock and on
 * a stale view of the states, so only the compare-and-set on the alert's state stands between
 * them and a double notification: each transition must arrive exactly once, by webhook and by
 * e-mail. With DATABASE_URL (CI) the application runs on a fresh database of the PostgreSQL
 * server and the second evaluator on its own connection pool, as another dashboard process
 * would; without, both share the embedded PGlite.
 */
t.setTimeout(600_000);

const ACCOUNT = '0e000000-0000-4000-8000-000000000001';
const CHATBOT = '0e000000-0000-4000-8000-0000000000b1';
const KEY = 'ck_EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE';
const USER = 'owner@shop-e.test';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

interface Delivery { body: string; signature: string | undefined; json: Record<string, unknown> }

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

t.test('a silence alert fires to a webhook, is resolved by one event, and two evaluators notify each transition once', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-alerts-e2e-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const deliveries: Delivery[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      deliveries.push({ body, signature: req.headers['x-chatlytics-signature'] as string | undefined, json: JSON.parse(body) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => receiver.close(() => r())));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks/chatlytics`;

  const server = databaseVariants().find((v) => v.name === 'server')!;
  const serverDb: TestDatabase | undefined = server.skip ? undefined : await server.open();
  const config = loadConfig({
    DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'alerts-e2e-secret-'.padEnd(40, 'x'),
    ALERT_EVALUATE_SECONDS: '2', ALERT_WEBHOOK_ALLOW_PRIVATE: 'true',
    ...(serverDb ? { DATABASE_URL: serverDb.databaseUrl } : {}),
  });
  const log = pino({ level: 'silent' });
  // Both evaluators' "now": real time plus what the test has moved it ahead.
  let ahead = 0;
  const clock = () => new Date(Date.now() + ahead);
  const s = await buildStandalone(config, log, { pluginTimeout: 120_000, clock });
  // The application first, then the database it used.
  t.teardown(async () => { await s.close(); await serverDb?.destroy(); });
  await s.app.ready();
  const secondDb = serverDb?.postgres ?? s.postgres;
  await importFixture(s.postgres.db, {
    accounts: [{ id: ACCOUNT, name: 'Shop E', cmsProviders: [], users: [{ email: USER, password: 'owner-password' }], apiKeys: [{ key: KEY }], chatbots: [{ id: CHATBOT, name: 'Echo' }] }],
  }, { passwordCost: TEST_SCRYPT_COST });

  // The second dashboard's loops: no advisory lock (a lock that always grants), a shorter
  // interval, and a slow process's view: each run decides on the alert states its previous run
  // read (at least 0.5 s old) with fresh figures, so it sees every change the first evaluator
  // records as still to be made, and tries to record it again.
  const secondRepo = createAlertRepository({ db: secondDb.db });
  let previous: Awaited<ReturnType<typeof secondRepo.listForEvaluation>> | undefined;
  const stale = {
    ...secondRepo,
    async listForEvaluation() {
      const fresh = await secondRepo.listForEvaluation();
      const seen = previous ?? fresh;
      previous = fresh;
      return seen;
    },
  };
  const second = createAlertEvaluator({
    alerts: stale, figures: createAlertFigures(s.clickhouse),
    postgres: { exclusive: async (_key, job) => job() }, log, clock, appUrl: config.appUrl, intervalMs: 500,
  });
  const secondWebhooks = createWebhookWorker({ deliveries: createWebhookDeliveryRepository({ db: secondDb.db }), log, allowPrivate: true, pollIntervalMs: 200 });
  second.start();
  secondWebhooks.start();
  t.teardown(async () => { await second.stop(); await secondWebhooks.stop(); });

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    s.app.inject({ method, url: `/api/dashboard${url}`, headers: { authorization: `Bearer ${KEY}` }, payload });
  const created = await api('POST', `/chatbots/${CHATBOT}/alerts`, { kind: 'silence', window_minutes: 1, email: true, webhook_url: webhookUrl });
  t.equal(created.statusCode, 201, created.body);
  const { alert, secret } = created.json().data as { alert: { id: string }; secret: string };
  t.match(secret, /^whsec_/);
  const createdAt = Date.now();

  const ofState = (state: string) => deliveries.filter((d) => d.json.state === state);
  const fired = await until('the firing webhook', 180_000, () => ofState('firing')[0]);
  const firedAfterMs = Date.now() - createdAt;
  t.ok(firedAfterMs < 180_000, `fired ${firedAfterMs} ms after creation`);
  const sign = (body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  t.equal(fired.signature, sign(fired.body), 'X-Chatlytics-Signature is the HMAC-SHA256 of the body with the secret');
  t.same(Object.keys(fired.json), ['alert_id', 'chatbot_id', 'kind', 'state', 'value', 'threshold', 'window_minutes', 'at']);
  t.match(fired.json, { alert_id: alert.id, chatbot_id: CHATBOT, kind: 'silence', state: 'firing', value: 0, threshold: null, window_minutes: 1 });
  t.ok(Date.parse(String(fired.json.at)) >= createdAt - 1000, 'at is the evaluation time');

  // One event through the public tracking endpoint ends the silence.
  const sentAt = Date.now();
  const track = await s.app.inject({
    method: 'POST', url: '/api/analytics/track', headers: { 'content-type': 'application/json', 'user-agent': BROWSER },
    payload: { event: 'visitor', token: 'alerts-e2e-visitor', data: { chatbot_id: CHATBOT } },
  });
  t.equal(track.statusCode, 200, track.body);
  const resolved = await until('the resolved webhook', 60_000, () => ofState('resolved')[0]);
  t.equal(resolved.signature, sign(resolved.body));
  t.match(resolved.json, { alert_id: alert.id, kind: 'silence', state: 'resolved', value: 1, window_minutes: 1 });

  // Once the event is older than the 1-minute window (the clock moves past it), the silence
  // fires again, once, however many more runs both evaluators and workers make.
  ahead = 61_000;
  const refired = await until('the second firing webhook', 120_000, () => ofState('firing')[1]);
  const refiredAfterMs = Date.parse(String(refired.json.at)) - sentAt;
  t.ok(refiredAfterMs >= 60_000 && refiredAfterMs < 90_000, `fired again ${refiredAfterMs} ms after the event: when it left the window`);
  t.equal(refired.signature, sign(refired.body));
  await new Promise((r) => setTimeout(r, 4_000));
  t.equal(ofState('firing').length, 2, 'one webhook per firing');
  t.equal(ofState('resolved').length, 1, 'one resolved webhook');
  t.equal(deliveries.length, 3);

  const listed = await api('GET', `/chatbots/${CHATBOT}/alerts`);
  const [shown] = listed.json().data.alerts as { state: string; transitions: { state: string }[]; secret?: string }[];
  t.equal(shown.state, 'firing');
  t.same(shown.transitions.map((x) => x.state), ['firing', 'resolved', 'firing'], 'the transitions, newest first');
  t.notOk('secret' in shown, 'the secret is never shown again');

  // The e-mails went through the mail queue to the account's user (the outbox: no Resend key).
  const outbox = path.join(dataDir, 'mail-outbox');
  const mails = await until('the three alert e-mails', 30_000, () => {
    const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith('.json')) : [];
    const all = files.map((f) => JSON.parse(fs.readFileSync(path.join(outbox, f), 'utf8')) as { to: string; subject: string; text: string });
    return all.length >= 3 ? all : undefined;
  });
  await new Promise((r) => setTimeout(r, 2_000));
  t.equal(fs.readdirSync(outbox).filter((f) => f.endsWith('.json')).length, 3, 'one e-mail per transition');
  t.same(mails.map((m) => m.subject).sort(), ['A Chatlytics alert is firing', 'A Chatlytics alert is firing', 'A Chatlytics alert is resolved']);
  t.ok(mails.every((m) => m.to === USER && m.text.includes('Echo') && m.text.includes(`/app/${CHATBOT}/alerts`)));
});
