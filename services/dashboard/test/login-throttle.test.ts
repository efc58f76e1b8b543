/**
 * The log-in throttle (src/auth/login-throttle.ts) through POST /login (form and JSON) and
 * POST /api/auth/tokens: per account and address, per address, per account from every address,
 * the same answers for an e-mail without an account, the owner still able to log in from
 * another address, locks that end, and counters every dashboard process shares.
 */
import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { THROTTLE, clientNetwork } from '../src/auth/login-throttle.js';
import { buildTestApp, lastErrorCode } from './helper.js';
import { NOW, USERS } from './fixture.js';

const MINUTE = 60_000;

t.test('client networks: IPv4 as is, IPv6 by /64, IPv4-mapped as IPv4', async (t) => {
  t.equal(clientNetwork('203.0.113.7'), '203.0.113.7');
  t.equal(clientNetwork('::ffff:203.0.113.7'), '203.0.113.7');
  t.equal(clientNetwork('2001:db8:1:2:aaaa::1'), '2001:0db8:0001:0002::/64');
  t.equal(clientNetwork('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:0db8:0001:0002::/64', 'one /64, one network');
  t.equal(clientNetwork('2001:db8::1'), '2001:0db8:0000:0000::/64');
  t.equal(clientNetwork('::1'), '0000:0000:0000:0000::/64');
  t.equal(clientNetwork('fe80::1%eth0'), 'fe80:0000:0000:0000::/64');
  t.not(clientNetwork('2001:db8:1:3::1'), clientNetwork('2001:db8:1:2::1'));
});

for (const variant of databaseVariants()) {
  t.test(`log-in throttle (${variant.name})`, { skip: variant.skip }, async (t) => {
    let now = NOW.getTime();
    const clock = () => new Date(now);
    const { app, tdb, logs } = await buildTestApp(t, variant, { clock });
    let ip = 1;
    /** A fresh client address for each subtest, so they do not share counters. */
    const freshIp = () => `198.51.100.${ip++}`;
    const json = (email: string, password: string, remoteAddress: string, url = '/login') =>
      app.inject({ method: 'POST', url, remoteAddress, headers: { accept: 'application/json' }, payload: { email, password } });

    t.test('15 wrong passwords: 5 refused as wrong, then 429 with Retry-After on both endpoints', async (t) => {
      const from = freshIp();
      const statuses: number[] = [];
      for (let i = 0; i < 15; i++) {
        const res = await json(USERS.ann.email, `wrong-${i}`, from, i % 2 ? '/api/auth/tokens' : '/login');
        statuses.push(res.statusCode);
        if (res.statusCode === 429) {
          t.match(res.headers['retry-after'], /^[1-9][0-9]*$/, 'Retry-After in seconds');
          t.same(res.json(), { success: false, message: 'Too many login attempts. Please try again later.' });
          t.equal(lastErrorCode(logs), 'DASHBOARD_018');
        }
      }
      t.same(statuses, [...Array(5).fill(422), ...Array(10).fill(429)]);
      const right = await json(USERS.ann.email, USERS.ann.password, from);
      t.equal(right.statusCode, 429, 'the right password is refused too while locked: the lock is no password oracle');
      t.equal(right.cookies.length, 0, 'no session');
    });

    t.test('an e-mail without an account gets the very same answers', async (t) => {
      now += THROTTLE.forgetAfterMs + MINUTE; // the account's attempts above are forgotten: both start alike
      const [a, b] = [freshIp(), freshIp()];
      for (let i = 0; i < 8; i++) {
        const known = await json(USERS.ann.email.toUpperCase(), 'wrong', a);
        const unknown = await json('nobody@shop-a.test', 'wrong', b);
        t.equal(unknown.statusCode, known.statusCode, `attempt ${i + 1}: same status`);
        t.same(unknown.json(), known.json(), 'same body');
        t.equal(unknown.headers['retry-after'], known.headers['retry-after'], 'same Retry-After');
      }
    });

    t.test('the owner still logs in from another address; the lock ends and then doubles', async (t) => {
      const attacker = freshIp();
      for (let i = 0; i < 5; i++) t.equal((await json(USERS.bob.email, 'wrong', attacker)).statusCode, 422);
      const locked = await json(USERS.bob.email, 'wrong', attacker);
      t.equal(locked.statusCode, 429);
      t.equal(locked.headers['retry-after'], '60', 'the first lock: one minute');
      t.equal((await json(USERS.bob.email, USERS.bob.password, freshIp())).statusCode, 200, 'the owner, elsewhere, is not locked out');
      now += 2 * MINUTE;
      t.equal((await json(USERS.bob.email, 'wrong', attacker)).statusCode, 422, 'after the lock one more guess is checked');
      const again = await json(USERS.bob.email, 'wrong', attacker);
      t.equal(again.statusCode, 429);
      t.equal(again.headers['retry-after'], String(4 * 60), 'locks grow: 7 attempts (the refused one counted), 4 minutes');
      now += THROTTLE.forgetAfterMs + MINUTE;
      t.equal((await json(USERS.bob.email, USERS.bob.password, attacker)).statusCode, 200, 'an hour without attempts forgets them');
    });

    t.test('a successful log-in clears its address\'s failures on the account', async (t) => {
      const from = freshIp();
      for (let i = 0; i < 4; i++) t.equal((await json(USERS.bob.email, 'wrong', from)).statusCode, 422);
      t.equal((await json(USERS.bob.email, USERS.bob.password, from)).statusCode, 200);
      for (let i = 0; i < 5; i++) t.equal((await json(USERS.bob.email, 'wrong', from)).statusCode, 422, 'five more typos allowed');
      t.equal((await json(USERS.bob.email, 'wrong', from)).statusCode, 429);
    });

    t.test('per address: 50 failures over many e-mails lock the address, not others', async (t) => {
      const from = freshIp();
      for (let i = 0; i < THROTTLE.networkLimit; i++) t.equal((await json(`spray-${i}@example.test`, 'wrong', from)).statusCode, 422);
      const blocked = await json(USERS.bob.email, USERS.bob.password, from);
      t.equal(blocked.statusCode, 429, 'even a right password from that address');
      t.equal(blocked.headers['retry-after'], String(15 * 60));
      t.equal((await json(USERS.bob.email, USERS.bob.password, freshIp())).statusCode, 200, 'another address is fine');
    });

    t.test('IPv6: one /64 is one address', async (t) => {
      for (let i = 0; i < 5; i++) t.equal((await json(USERS.bob.email, 'wrong', `2001:db8:77:1::${i + 1}`)).statusCode, 422);
      t.equal((await json(USERS.bob.email, 'wrong', '2001:db8:77:1:ffff::9')).statusCode, 429, 'another address of the same /64');
      t.equal((await json(USERS.bob.email, USERS.bob.password, '2001:db8:77:2::1')).statusCode, 200, 'the next /64 is another network');
    });

    t.test('per account from every address: 20 failures lock addresses that failed twice; a clean one still logs in', async (t) => {
      now += THROTTLE.forgetAfterMs + MINUTE;
      const bots = Array.from({ length: THROTTLE.accountLimit / 2 }, freshIp);
      for (const bot of bots) for (let i = 0; i < 2; i++) t.equal((await json(USERS.bob.email, 'wrong', bot)).statusCode, 422);
      const third = await json(USERS.bob.email, USERS.bob.password, bots[0]);
      t.equal(third.statusCode, 429, 'an address with two failures is locked by the account-wide count');
      t.equal(third.headers['retry-after'], String(15 * 60));
      const owner = freshIp();
      t.equal((await json(USERS.bob.email, USERS.bob.password, owner)).statusCode, 200, 'the owner from a clean address');
      t.equal((await json(USERS.bob.email, 'typo', owner)).statusCode, 422, 'and even one typo there');
      t.equal((await json(USERS.bob.email, USERS.bob.password, owner)).statusCode, 200);
    });

    t.test('the form gets a 429 page with Retry-After', async (t) => {
      const from = freshIp();
      const form = (password: string) => app.inject({
        method: 'POST', url: '/login', remoteAddress: from, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=${encodeURIComponent(USERS.ann.email)}&password=${password}`,
      });
      for (let i = 0; i < 5; i++) t.equal((await form('wrong')).statusCode, 302, 'a wrong password goes back to the form');
      const res = await form('wrong');
      t.equal(res.statusCode, 429);
      t.match(res.headers['content-type'], /text\/html/);
      t.equal(res.headers['retry-after'], '60');
      t.match(res.body, /Too many login attempts/);
      t.match(res.body, /try again in 1 minute/);
      t.equal(lastErrorCode(logs), 'DASHBOARD_018', 'the code is logged for the page too');
    });

    t.test('counters live in PostgreSQL: another dashboard process on the database sees the lock', async (t) => {
      const from = freshIp();
      for (let i = 0; i < 5; i++) await json(USERS.ann.email, 'wrong', from);
      const second = await buildTestApp(t, variant, { clock, tdb });
      const res = await second.app.inject({ method: 'POST', url: '/api/auth/tokens', remoteAddress: from, payload: USERS.ann });
      t.equal(res.statusCode, 429);
    });
  });
}
