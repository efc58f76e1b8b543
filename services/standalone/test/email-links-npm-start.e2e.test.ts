import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, exited, start } from './child.js';

/**
 * `npm start` without APP_URL on a port that is not 3000 (PORT=0: a free one, resolved once
 * before start-up): the weekly digest that `npm run cli -- digest:send` has the running server
 * send lands in DATA_DIR/mail-outbox with every link at the address the server listens on, and
 * each of them answers 200 after logging in there; the button opens exactly the digest's week.
 */
const ACCOUNT = '0f000000-0000-4000-8000-000000000001';
const BOT = '0f000000-0000-4000-8000-0000000000b1';
const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const USER = { email: 'fay@shop-f.test', password: 'fay-password' };
const fixture = {
  accounts: [{ id: ACCOUNT, name: 'Shop F', users: [USER], chatbots: [{ id: BOT, name: 'Bot F' }] }],
  events: [{ event: 'visitor', token: 'tok-ffff-0001', data: { chatbot_id: BOT }, receivedAt: new Date(today - 2 * DAY + 36_000_000).toISOString() }],
};

t.setTimeout(600_000);

t.test('the digest sent by npm start links to its own address, and every link answers 200 after log-in', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-mail-links-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dataDir, 'fixture.json'), JSON.stringify(fixture));
  t.equal((await cli(dataDir, ['import', path.join(dataDir, 'fixture.json')])).code, 0, 'import');

  const server = await start(dataDir);
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child); });
  const port = new URL(server.url).port;
  t.not(port, '3000');
  const origin = `http://localhost:${port}`;

  const run = await cli(dataDir, ['digest:send', '--email', USER.email]);
  t.equal(run.code, 0, run.stderr);
  const outbox = path.join(dataDir, 'mail-outbox');
  let files: string[] = [];
  for (let i = 0; i < 300 && files.length === 0; i++) {
    files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith('.json')) : [];
    if (files.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(files.length, 1, 'the digest in the outbox');
  const mail = JSON.parse(fs.readFileSync(path.join(outbox, files[0]!), 'utf8')) as { html: string; text: string; headers: Record<string, string> };
  const links = [...mail.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
  t.ok(links.length >= 3, 'the dashboard, settings and unsubscribe links');
  for (const link of links) t.ok(link.startsWith(`${origin}/`), `${link}: the address the server listens on`);
  t.match(mail.headers['List-Unsubscribe'], `<${origin}/unsubscribe/weekly-digest?`);
  const week = `${origin}/app/${BOT}/analytics?from=${day(today - 7 * DAY)}&to=${day(today - DAY)}`;
  t.ok(links.includes(week), 'the button opens exactly the digest\'s week');
  t.match(mail.text, `Details: ${week}`);

  // Log in at that address, then open each link as a browser would (following the app's redirects).
  const login = await fetch(`${origin}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USER) });
  t.equal(login.status, 200);
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  for (const link of links) {
    const res = await fetch(link, { headers: { cookie, accept: 'text/html' } });
    t.equal(res.status, 200, `${link} answers 200 after log-in`);
    t.ok(res.url.startsWith(`${origin}/`), 'and stays at that address');
  }
});
