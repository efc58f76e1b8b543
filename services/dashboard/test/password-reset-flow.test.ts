import t, { type Test } from 'tap';
import { sql } from 'drizzle-orm';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { sha256Hex } from '../src/crypto/credentials.js';
import { MESSAGES } from '../src/http/errors.js';
import {
  ANN, API_KEY, APP_URL, BOB, buildResetApp, cookieOf, cookies, openSeededDatabase, outbox, resetLinkOf, rows, waitFor, waitForMail,
} from './password-reset-harness.js';

const MIN = 60_000;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_ACCEPT = { accept: 'application/json' };
const form = (o: Record<string, string>) => new URLSearchParams(o).toString();

for (const variant of databaseVariants()) {
  t.test(`password reset flow end to end (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await openSeededDatabase(t, variant);
    const h = await buildResetApp(t, { postgres: tdb.postgres, dataDir: tdb.dataDir, tuning: { rateLimits: { requestsPerMinute: 1000, resetsPerMinute: 1000 } } });
    const { app, clock } = h;
    const db = tdb.postgres.db;
    const annEmail = ANN.email.toLowerCase();
    const pendingJobs = async () => rows<{ n: number }>(await db.execute(sql`select count(*)::int as n from jobs where status in ('pending', 'running')`))[0].n;
    const mailsTo = (to: string) => outbox(h.outboxDir).filter((m) => m.to === to.toLowerCase() && /Reset/.test(m.subject));
    /** Request a link as a guest through the form and return the mail that arrives. */
    const requestLinkByForm = async (t: Test, email: string, n: number) => {
      const res = await app.inject({ method: 'POST', url: '/forgot-password', headers: { ...FORM, referer: `${APP_URL}/forgot-password` }, payload: form({ email }) });
      t.equal(res.statusCode, 302, 'link requested');
      return waitForMail(h.outboxDir, email, n, /Reset/);
    };

    t.test('guest: request, link from the outbox, reset, success on /login, log in with the new password', async (t) => {
      const res = await app.inject({ method: 'POST', url: '/forgot-password', headers: { ...FORM, referer: `${APP_URL}/forgot-password`, host: 'evil.test' }, payload: form({ email: ANN.email }) });
      t.equal(res.statusCode, 302);
      t.equal(res.headers.location, '/forgot-password', 'back to the Referer');
      const page = await app.inject({ method: 'GET', url: '/forgot-password', headers: { cookie: cookieOf(res, 'chatlytics_flash') } });
      t.equal(page.statusCode, 200);
      t.match(page.body, 'If an account with that email exists, we&#39;ve sent a password reset link.', 'the status, escaped, on the next page');

      const mail = await waitForMail(h.outboxDir, ANN.email);
      t.equal(mail.subject, 'Reset your Chatlytics password');
      const link = resetLinkOf(mail);
      t.ok(link.url.startsWith(`${APP_URL}/reset-password/`), 'link built from APP_URL, not the Host header');
      t.equal(link.email, annEmail);
      t.match(link.token, /^[A-Za-z0-9_-]{43}$/, '256 bits, base64url');
      t.match(mail.html, link.url.replace(/&/g, '&amp;'), 'the HTML part carries the same link');
      t.match(mail.sentAt, /^\d{4}-\d\d-\d\dT/);

      const stored = rows<{ email: string; token_hash: string }>(await db.execute(sql`select email, token_hash from password_reset_tokens`));
      t.same(stored, [{ email: annEmail, token_hash: sha256Hex(link.token) }], 'only the digest is stored, one row per e-mail');
      await waitFor('the job to be settled', async () => (await pendingJobs()) === 0);
      const jobs = rows<{ payload: unknown; status: string }>(await db.execute(sql`select payload, status from jobs`));
      t.same(jobs, [{ payload: { email: annEmail }, status: 'sent' }], 'the sent job keeps no token, sealed or not');

      const formPage = await app.inject({ method: 'GET', url: link.path });
      t.equal(formPage.statusCode, 200);
      t.equal(formPage.headers['referrer-policy'], 'no-referrer');
      t.equal(formPage.headers['cache-control'], 'no-store');
      t.match(formPage.headers['content-type'], /^text\/html/);
      t.match(formPage.body, `name="token" value="${link.token}"`);
      t.match(formPage.body, `value="${annEmail}"`);
      t.match(formPage.body, '<html lang="en">');

      const newPassword = 'a brand new passphrase';
      // Browsers post a no-referrer page's form with `Origin: null` and no Referer.
      const reset = await app.inject({
        method: 'POST', url: '/reset-password', headers: { ...FORM, origin: 'null' },
        payload: form({ token: link.token, email: link.email, password: newPassword, password_confirmation: newPassword }),
      });
      t.equal(reset.statusCode, 302);
      t.equal(reset.headers.location, '/login', 'a guest goes to the login page');
      const login = await app.inject({ method: 'GET', url: '/login', headers: { cookie: cookieOf(reset, 'chatlytics_flash') } });
      t.match(login.body, MESSAGES.passwordReset);
      t.notOk(reset.cookies.some((c) => c.name === 'chatlytics_session' && c.value), 'no auto-login');

      t.equal((await app.inject({ method: 'POST', url: '/login', payload: ANN })).statusCode, 422, 'the old password is gone');
      t.equal((await app.inject({ method: 'POST', url: '/login', payload: { email: ANN.email, password: newPassword } })).statusCode, 200);
      ANN.password = newPassword;
      t.same(rows(await db.execute(sql`select 1 from password_reset_tokens`)), [], 'the token is used up');

      const notice = await waitForMail(h.outboxDir, ANN.email, 1, /changed/);
      t.equal(notice.subject, 'Your Chatlytics password was changed');
      t.match(notice.text, `${APP_URL}/forgot-password`);

      const reused = await app.inject({
        method: 'POST', url: '/reset-password', headers: { ...FORM, origin: 'null' },
        payload: form({ token: link.token, email: link.email, password: 'another password', password_confirmation: 'another password' }),
      });
      t.equal(reused.statusCode, 302);
      t.equal(reused.headers.location, link.path, 'back to the form (the form sends no Referer)');
      const again = await app.inject({ method: 'GET', url: link.path, headers: { cookie: cookieOf(reused, 'chatlytics_flash') } });
      t.match(again.body, MESSAGES.invalidToken);
      t.notMatch(JSON.stringify(h.logs), link.token, 'the token never reaches the log (not even as part of a URL)');
    });

    t.test('JSON: the same answer for a known, an unknown and a throttled e-mail; mail only for the known one', async (t) => {
      clock.advance(2 * MIN);
      const ask = (email: string) => app.inject({ method: 'POST', url: '/forgot-password', headers: JSON_ACCEPT, payload: { email } });
      const answers = [await ask(ANN.email), await ask('nobody@nowhere.test'), await ask(ANN.email.toUpperCase())];
      for (const res of answers) {
        t.equal(res.statusCode, 200);
        t.same(res.json(), { success: true, message: "If an account with that email exists, we've sent a password reset link." });
      }
      t.same(answers.map((a) => Object.keys(a.headers).sort()), answers.map(() => Object.keys(answers[0].headers).sort()), 'same headers');
      await waitForMail(h.outboxDir, ANN.email, 2, /Reset/);
      await waitFor('the queue to drain', async () => (await pendingJobs()) === 0);
      t.equal(mailsTo(ANN.email).length, 2, 'one new mail: the second request was throttled');
      t.equal(mailsTo('nobody@nowhere.test').length, 0);
      t.same(rows(await db.execute(sql`select 1 from jobs where payload->>'email' = 'nobody@nowhere.test'`)), [], 'no trace of the unknown address');
      const logged = JSON.stringify(h.logs);
      t.notMatch(logged, 'nobody@nowhere.test', 'addresses never reach the log');
      t.notMatch(logged, annEmail);
    });

    t.test('throttle: a new token only after PASSWORD_RESET_THROTTLE_SECONDS; the newest token replaces the old one', async (t) => {
      clock.advance(2 * MIN);
      const first = resetLinkOf(await requestLinkByForm(t, ANN.email, 3));
      clock.advance(30_000);
      await app.inject({ method: 'POST', url: '/forgot-password', headers: JSON_ACCEPT, payload: { email: ANN.email } });
      await waitFor('the queue to drain', async () => (await pendingJobs()) === 0);
      t.equal(mailsTo(ANN.email).length, 3, 'throttled: no new token, no mail');
      clock.advance(31_000);
      const second = resetLinkOf(await requestLinkByForm(t, ANN.email, 4));
      t.not(second.token, first.token);
      const stale = await app.inject({
        method: 'POST', url: '/reset-password', headers: JSON_ACCEPT,
        payload: { token: first.token, email: ANN.email, password: 'x'.repeat(12), password_confirmation: 'x'.repeat(12) },
      });
      t.equal(stale.statusCode, 422, 'the replaced token no longer works');
    });

    t.test('invalid resets: mismatch, short, missing, wrong e-mail, expired; a failed attempt keeps the token', async (t) => {
      clock.advance(2 * MIN);
      const link = resetLinkOf(await requestLinkByForm(t, ANN.email, 5));
      const post = (payload: Record<string, string>) => app.inject({ method: 'POST', url: '/reset-password', headers: JSON_ACCEPT, payload });
      const good = { token: link.token, email: ANN.email, password: 'long enough pass', password_confirmation: 'long enough pass' };

      let res = await post({ ...good, password_confirmation: 'something else' });
      t.equal(res.statusCode, 422);
      t.same(res.json(), { success: false, message: 'The given data was invalid.', errors: { password: ['The password field confirmation does not match.'] } });
      res = await post({ ...good, password: 'short', password_confirmation: 'short' });
      t.same(res.json().errors, { password: ['The password field must be at least 8 characters.'] });
      res = await post({});
      t.same(Object.keys(res.json().errors).sort(), ['email', 'password', 'password_confirmation', 'token']);
      res = await post({ ...good, email: 'not-an-email' });
      t.same(res.json().errors, { email: ['The email field must be a valid email address.'] });

      for (const payload of [{ ...good, email: BOB.email }, { ...good, token: link.token.slice(0, -1) + (link.token.endsWith('A') ? 'B' : 'A') }]) {
        res = await post(payload);
        t.equal(res.statusCode, 422);
        t.same(res.json(), { success: false, message: MESSAGES.invalidToken, errors: { email: [MESSAGES.invalidToken] } });
      }
      const formRes = await app.inject({ method: 'POST', url: '/reset-password', headers: { ...FORM, origin: 'null' }, payload: form({ ...good, password_confirmation: 'nope' }) });
      t.equal(formRes.statusCode, 302);
      t.equal(formRes.headers.location, `/reset-password/${link.token}?email=${encodeURIComponent(ANN.email)}`, 'back to the form as it was posted');
      const page = await app.inject({ method: 'GET', url: link.path, headers: { cookie: cookieOf(formRes, 'chatlytics_flash') } });
      t.match(page.body, 'The password field confirmation does not match.');
      t.notMatch(page.body, 'nope', 'passwords are never echoed');

      clock.advance(60 * MIN + 1);
      res = await post(good);
      t.equal(res.statusCode, 422, 'expired after PASSWORD_RESET_EXPIRE_MINUTES (the failed attempts did not use it up)');
      t.same(res.json().errors, { email: [MESSAGES.invalidToken] });
    });

    t.test('logged in: guest-only forgot-password, send-password-reset, reset ends every session and token, keeps API keys', async (t) => {
      clock.advance(2 * MIN);
      const session = await h.login(ANN);
      const otherSession = await h.login(ANN);
      const token = (await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: ANN })).json().data.token as string;
      const bobSession = await h.login(BOB);

      const json = await app.inject({ method: 'POST', url: '/forgot-password', headers: { ...JSON_ACCEPT, cookie: session }, payload: { email: ANN.email } });
      t.equal(json.statusCode, 403);
      t.same(json.json(), { success: false, message: 'You are already logged in.' });
      const asForm = await app.inject({ method: 'POST', url: '/forgot-password', headers: { ...FORM, cookie: session }, payload: form({ email: ANN.email }) });
      t.equal(asForm.statusCode, 302);
      t.equal(asForm.headers.location, '/settings/profile');

      const guest = await app.inject({ method: 'POST', url: '/app/send-password-reset', headers: JSON_ACCEPT });
      t.equal(guest.statusCode, 401);
      t.equal((await app.inject({ method: 'POST', url: '/app/send-password-reset' })).headers.location, '/login');
      const cross = await app.inject({ method: 'POST', url: '/app/send-password-reset', headers: { cookie: session, origin: 'https://evil.test' } });
      t.equal(cross.statusCode, 403, 'a cross-site form cannot trigger it');

      const sent = await app.inject({ method: 'POST', url: '/app/send-password-reset', headers: { cookie: session, referer: `${APP_URL}/settings/profile`, origin: APP_URL } });
      t.equal(sent.statusCode, 302);
      t.equal(sent.headers.location, '/settings/profile');
      const profile = await app.inject({ method: 'GET', url: '/settings/profile', headers: { cookie: cookies(session, cookieOf(sent, 'chatlytics_flash')) } });
      t.match(profile.body, 'Password reset link has been sent to your email.');
      t.match(profile.body, annEmail);
      const viaJson = await app.inject({ method: 'POST', url: '/app/send-password-reset', headers: { ...JSON_ACCEPT, cookie: session } });
      t.same(viaJson.json(), { success: true, message: 'Password reset link has been sent to your email.' });

      const link = resetLinkOf(await waitForMail(h.outboxDir, ANN.email, 6, /Reset/));
      const reset = await app.inject({
        method: 'POST', url: '/reset-password', headers: { ...FORM, cookie: session, origin: APP_URL },
        payload: form({ token: link.token, email: link.email, password: 'logged in new pass', password_confirmation: 'logged in new pass' }),
      });
      t.equal(reset.statusCode, 302);
      t.equal(reset.headers.location, '/settings/profile', 'a logged-in user goes to the profile');
      const flash = cookieOf(reset, 'chatlytics_flash');
      const after = await app.inject({ method: 'GET', url: '/settings/profile', headers: { cookie: cookies(session, flash) } });
      t.equal(after.statusCode, 302, 'the session was ended with all others');
      t.equal(after.headers.location, '/login');
      t.match((await app.inject({ method: 'GET', url: '/login', headers: { cookie: flash } })).body, MESSAGES.passwordReset);
      t.equal((await app.inject({ method: 'GET', url: '/settings/profile', headers: { cookie: otherSession } })).statusCode, 302, 'other sessions ended');
      t.equal((await app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers: { authorization: `Bearer ${token}` } })).statusCode, 401, 'auth tokens revoked');
      t.equal((await app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers: { authorization: `Bearer ${API_KEY}` } })).statusCode, 200, 'API keys stay');
      t.equal((await app.inject({ method: 'GET', url: '/settings/profile', headers: { cookie: bobSession } })).statusCode, 200, "another user's session stays");
      ANN.password = 'logged in new pass';
    });

    t.test('pages: escaping, guest redirects, no open redirect, cross-origin posts refused', async (t) => {
      const evil = '"><script>alert(1)</script>';
      const page = await app.inject({ method: 'GET', url: `/reset-password/${encodeURIComponent(evil)}?email=${encodeURIComponent(evil)}` });
      t.equal(page.statusCode, 200);
      t.notMatch(page.body, '<script>');
      t.match(page.body, '&quot;&gt;&lt;script&gt;');
      t.match(page.headers['content-security-policy'], "default-src 'none'");
      const session = await h.login(BOB);
      t.equal((await app.inject({ method: 'GET', url: '/login', headers: { cookie: session } })).headers.location, '/app', 'logged in: on to the app');
      t.equal((await app.inject({ method: 'GET', url: '/forgot-password', headers: { cookie: session } })).headers.location, '/app');
      const login = await app.inject({ method: 'GET', url: '/login' });
      t.match(login.body, '<label for="email">');
      t.match(login.body, 'href="/forgot-password"');
      const offsite = await app.inject({ method: 'POST', url: '/forgot-password', headers: { ...FORM, referer: 'https://evil.test/phish' }, payload: form({ email: 'x@y.test' }) });
      t.equal(offsite.headers.location, '/forgot-password', 'a foreign Referer is not followed');
      const invalid = await app.inject({ method: 'POST', url: '/forgot-password', headers: { ...FORM, referer: `${APP_URL}/forgot-password` }, payload: form({ email: 'not an email' }) });
      t.equal(invalid.statusCode, 302);
      const shown = await app.inject({ method: 'GET', url: '/forgot-password', headers: { cookie: cookieOf(invalid, 'chatlytics_flash') } });
      t.match(shown.body, 'The email field must be a valid email address.');
      t.match(shown.body, 'value="not an email"', 'the input is kept');
      const unprocessable = await app.inject({ method: 'POST', url: '/forgot-password', headers: JSON_ACCEPT, payload: {} });
      t.equal(unprocessable.statusCode, 422);
      t.same(unprocessable.json(), { success: false, message: 'The given data was invalid.', errors: { email: ['The email field is required.'] } });
      for (const url of ['/forgot-password', '/reset-password']) {
        const res = await app.inject({ method: 'POST', url, headers: { ...JSON_ACCEPT, origin: 'https://evil.test' }, payload: { email: 'x@y.test' } });
        t.equal(res.statusCode, 403, `${url} refuses another origin`);
      }
    });
  });
}
