import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_ENDPOINT_FILE } from '../src/admin/endpoint-file.js';
import { TRACKER_STUB } from '@chatlytics/dashboard';
import { cli, exited, start, type CliRun } from './child.js';

/**
 * `npm run cli -- …` while `npm start` runs on the same embedded DATA_DIR: the CLI finds the
 * lock held, reads the server's admin endpoint file and has the server run the command on its
 * open stores. Both run as real processes, exactly as the scripts start them.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

type Run = CliRun;


const ok = (t: { equal: (a: unknown, b: unknown, m: string) => unknown }, run: Run, what: string) => t.equal(run.code, 0, `${what}: exit 0 ${run.code === 0 ? '' : run.stderr}`);

// Several CLI processes and a server start under a shared machine's load.
t.setTimeout(900_000);

t.test('the CLI while npm start runs on the same DATA_DIR', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-cli-live-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await start(dataDir, { INGEST_PUBLIC_URL: 'https://track.example.com' });
  t.teardown(() => { if (server.child.exitCode === null) server.child.kill('SIGKILL'); });
  const api = (url: string, key: string) => fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${key}` } });

  const file = path.join(dataDir, ADMIN_ENDPOINT_FILE);
  // Written by the server's onListen hook, which runs just after the "listening" line is logged.
  for (let i = 0; i < 100 && !fs.existsSync(file); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  const endpoint = JSON.parse(fs.readFileSync(file, 'utf8'));
  t.equal(fs.statSync(file).mode & 0o777, 0o600, 'the admin endpoint file is readable by its owner only');
  t.equal(endpoint.url, server.url);
  t.match(endpoint.credential, /^ca_[A-Za-z0-9_-]{43}$/);

  const user = await cli(dataDir, ['users:create', '--email', 'live@shop.test', '--password', 'live-password']);
  ok(t, user, 'users:create');

  const bot = await cli(dataDir, ['chatbots:create', '--email', 'live@shop.test', '--name', 'Live bot', '--language', 'de', '--ab-test']);
  ok(t, bot, 'chatbots:create');
  const { chatbot, embed } = bot.json();
  t.match(chatbot, { name: 'Live bot', language: 'de', abTestEnabled: true });
  t.equal(embed.snippet, `${TRACKER_STUB}\n<script async src="https://track.example.com/tracker.js" data-chatbot-id="${chatbot.id}" data-ab-test="true"></script>`);

  // The digest runs in the server on its open stores and writes to its outbox (no RESEND_API_KEY).
  const digest = await cli(dataDir, ['digest:send', '--email', 'live@shop.test']);
  ok(t, digest, 'digest:send');
  t.match(digest.json().sent, { to: 'live@shop.test', chatbots: 1, transport: 'outbox' });
  const outbox = fs.readdirSync(path.join(dataDir, 'mail-outbox')).filter((f) => f.endsWith('.json'));
  t.equal(outbox.length, 1, 'the digest is in the outbox');
  t.match(JSON.parse(fs.readFileSync(path.join(dataDir, 'mail-outbox', outbox[0]), 'utf8')).text, '== Live bot ==');

  const created = await cli(dataDir, ['api-keys:create', '--email', 'live@shop.test', '--name', 'backend']);
  ok(t, created, 'api-keys:create');
  const { key, id } = created.json();
  t.match(key, /^ck_/);
  const list = await api('/api/dashboard/chatbots', key);
  t.equal(list.status, 200, 'the key made by the CLI works against the JSON API');
  t.same(((await list.json()) as any).data.chatbots.map((c: { id: string }) => c.id), [chatbot.id], "and sees its account's chatbot");

  const listed = await cli(dataDir, ['api-keys:list', '--email', 'live@shop.test']);
  ok(t, listed, 'api-keys:list');
  t.same(listed.json().keys.map((k: { id: string }) => k.id), [id]);
  t.notOk(listed.stdout.includes(key), 'the key is never listed');

  const sqlKey = await cli(dataDir, ['sql-keys:create', '--name', 'analyst']);
  ok(t, sqlKey, 'sql-keys:create');
  const probe = await fetch(`${server.url}/clickhouse/?query=${encodeURIComponent('SELECT 1')}`, { headers: { 'X-ClickHouse-Key': sqlKey.json().key } });
  t.equal(probe.status, 200, 'the SQL key opens the SQL interface');
  ok(t, await cli(dataDir, ['sql-keys:list']), 'sql-keys:list');
  ok(t, await cli(dataDir, ['sql-keys:revoke', '--name', 'analyst']), 'sql-keys:revoke');

  const refusedByServer = await cli(dataDir, ['api-keys:create', '--email', 'nobody@shop.test']);
  t.equal(refusedByServer.code, 1, 'a command the server refuses exits 1');
  t.equal(refusedByServer.stderr.trim(), 'no user with e-mail nobody@shop.test', "with the command's own message, as when it runs alone");

  // A relative file name, from another working directory than the server's (the repository root).
  const elsewhere = path.join(root, 'services/standalone');
  const relative = (name: string) => path.relative(elsewhere, path.join(dataDir, name));
  fs.writeFileSync(path.join(dataDir, 'shop.json'), JSON.stringify({ accounts: [{ id: '0d000000-0000-4000-8000-000000000001', name: 'Imported',
    chatbots: [{ id: '0d000000-0000-4000-8000-0000000000b1', name: 'Imported bot' }] }] }));
  const imported = await cli(dataDir, ['import', relative('shop.json')], elsewhere);
  ok(t, imported, 'import of a relative path');
  fs.writeFileSync(path.join(dataDir, 'broken.json'), JSON.stringify({ accounts: [{ id: 'nope' }] }));
  const broken = await cli(dataDir, ['import', relative('broken.json')], elsewhere);
  t.equal(broken.code, 1, 'an invalid fixture is refused by the server');
  t.match(broken.stderr, /^invalid fixture\n {2}\S/, 'with every problem listed');

  const replay = await cli(dataDir, ['replay', '--from', '2026-01-01T00:00:00Z']);
  t.equal(replay.code, 1, 'replay is refused while the server runs');
  t.match(replay.stderr, /replay cannot run while npm start \(pid \d+\) uses .*stop the server first/);

  const forged = await fetch(`${server.url}/api/admin/cli`, {
    method: 'POST', headers: { authorization: 'Bearer ca_forged', 'content-type': 'application/json' },
    body: JSON.stringify({ command: 'sql-keys:list', argv: [] }),
  });
  t.equal(forged.status, 401, 'the admin route wants this start\'s credential');
  t.same(await forged.json(), { success: false, message: 'Unauthenticated.' });
  const withKey = await fetch(`${server.url}/api/admin/cli`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"command":"sql-keys:list","argv":[]}',
  });
  t.equal(withKey.status, 401, 'an account API key is not the admin credential');

  const demo = await cli(dataDir, ['demo']);
  ok(t, demo, 'demo');
  t.ok(demo.json().events.inserted > 0, 'the demo events were written by the server');
  const token = await fetch(`${server.url}/api/auth/tokens`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'demo@example.com', password: 'demo-password' }),
  });
  t.equal(token.status, 201, 'the demo account logs in on the running server');

  const revoked = await cli(dataDir, ['api-keys:revoke', '--email', 'live@shop.test', '--id', id]);
  ok(t, revoked, 'api-keys:revoke');
  t.equal((await api('/api/dashboard/chatbots', key)).status, 401, 'the revoked key answers 401');

  server.child.kill('SIGTERM');
  t.equal(await exited(server.child), 0, 'the server stops cleanly');
  t.notOk(fs.existsSync(file), 'and removes its admin endpoint file');
  const direct = await cli(dataDir, ['api-keys:list', '--email', 'live@shop.test']);
  ok(t, direct, 'with no server the CLI opens the stores itself');
  t.same(direct.json(), { keys: [] }, 'and sees what the server wrote');
});
