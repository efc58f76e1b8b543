import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { ANN, BOB, buildResetApp, openSeededDatabase } from './password-reset-harness.js';

const pglite = databaseVariants().find((v) => v.name === 'pglite')!;
const JSON_ACCEPT = { accept: 'application/json' };

t.test('rate limits: 5/min for link requests, 10/min for resets, per client IP and per e-mail', async (t) => {
  const tdb = await openSeededDatabase(t, pglite);
  // The production limits (no tuning); the worker is off: only the HTTP answers matter here.
  const h = await buildResetApp(t, { postgres: tdb.postgres, dataDir: tdb.dataDir, tuning: { mail: { worker: false } } });
  const forgot = (email: string, ip: string, json = true) => h.app.inject({
    method: 'POST', url: '/forgot-password', remoteAddress: ip,
    ...(json ? { headers: JSON_ACCEPT, payload: { email } } : { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `email=${encodeURIComponent(email)}` }),
  });

  t.test('per IP, across different e-mails', async (t) => {
    for (let i = 0; i < 5; i++) t.equal((await forgot(`user${i}@x.test`, '10.0.0.1')).statusCode, 200);
    const limited = await forgot('user9@x.test', '10.0.0.1');
    t.equal(limited.statusCode, 429);
    t.same(limited.json(), { success: false, message: 'Too Many Attempts.' });
    t.match(limited.headers['retry-after'], /^[1-9]\d*$/);
    const page = await forgot('user9@x.test', '10.0.0.1', false);
    t.equal(page.statusCode, 429, 'a browser form post gets a page with the same status');
    t.match(page.headers['content-type'], /^text\/html/);
    t.equal((await forgot('user9@x.test', '10.0.0.2')).statusCode, 200, 'another client is not affected');
  });

  t.test('per e-mail (case-insensitive), across different IPs', async (t) => {
    for (let i = 0; i < 5; i++) t.equal((await forgot(i % 2 ? ANN.email : ANN.email.toUpperCase(), `10.1.0.${i}`)).statusCode, 200);
    const limited = await forgot(ANN.email.toLowerCase(), '10.1.0.99');
    t.equal(limited.statusCode, 429, 'unknown and known addresses alike are limited by address');
    t.equal((await forgot(BOB.email, '10.1.0.99')).statusCode, 200);
  });

  t.test('send-password-reset: per session e-mail', async (t) => {
    const session = await h.login(BOB);
    const send = (ip: string) => h.app.inject({ method: 'POST', url: '/app/send-password-reset', remoteAddress: ip, headers: { ...JSON_ACCEPT, cookie: session } });
    // Bob's address has one request counted on /forgot-password above: each route has its own budget.
    for (let i = 0; i < 5; i++) t.equal((await send(`10.2.0.${i}`)).statusCode, 200);
    t.equal((await send('10.2.0.200')).statusCode, 429);
  });

  t.test('reset-password: 10 a minute', async (t) => {
    const reset = (ip: string, email = 'carol@x.test') => h.app.inject({
      method: 'POST', url: '/reset-password', remoteAddress: ip, headers: JSON_ACCEPT,
      payload: { token: 'x'.repeat(43), email, password: 'whatever123', password_confirmation: 'whatever123' },
    });
    for (let i = 0; i < 10; i++) t.equal((await reset('10.3.0.1', `c${i}@x.test`)).statusCode, 422, 'invalid token, but counted');
    t.equal((await reset('10.3.0.1')).statusCode, 429, 'per IP');
    for (let i = 0; i < 10; i++) await reset(`10.4.0.${i}`);
    t.equal((await reset('10.4.0.100')).statusCode, 429, 'per e-mail');
  });
});
