import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveSessionSecret } from '../src/session-secret.js';

t.test('session secret: generated once, kept in DATA_DIR, owner-only', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-secret-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const first = resolveSessionSecret(undefined, dir);
  t.ok(first.length >= 32);
  t.equal(resolveSessionSecret(undefined, dir), first);
  t.equal(fs.statSync(path.join(dir, 'session-secret')).mode & 0o777, 0o600);
});

t.test('a configured SESSION_SECRET wins and nothing is written', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-secret-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  t.equal(resolveSessionSecret('x'.repeat(40), dir), 'x'.repeat(40));
  t.notOk(fs.existsSync(path.join(dir, 'session-secret')));
});
