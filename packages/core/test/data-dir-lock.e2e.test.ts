import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { acquireDataDirLock, DataDirLockedError } from '../src/data-dir-lock.js';

const holder = fileURLToPath(new URL('./fixtures/hold-lock.ts', import.meta.url));
const tmp = (t: { teardown(fn: () => void): void }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-lock-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/**
 * A process that tries to take the lock; resolves once it said whether it got it. It runs
 * under a shell that then becomes `sleep`, which never reaps children: once killed, the holder
 * stays in the process table as a zombie, its pid alive to kill(pid, 0) (what a pid file
 * checks), as a dying process is for a while. Only a lock the kernel releases survives that.
 */
const parents: ChildProcess[] = [];
t.teardown(() => { for (const p of parents) p.kill('SIGKILL'); });
function hold(dir: string): Promise<{ pid: number; line: string }> {
  const child = spawn('sh', ['-c', '"$0" --import=tsx "$1" "$2" & exec sleep 600', process.execPath, holder, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  parents.push(child);
  return new Promise((resolve) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve({ pid: Number(/^locked (\d+)/.exec(out)?.[1]), line: out.trim() });
    });
  });
}

const isZombie = (pid: number) => {
  try { return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z'); } catch { return false; }
};

t.test('one holder at a time; the refusal names the holder; release frees it', async (t) => {
  const dir = tmp(t);
  const lock = await acquireDataDirLock(dir, 'npm start');
  t.ok(fs.statSync(path.join(dir, '.lock')).isSocket(), 'the lock is a socket in DATA_DIR');
  await t.rejects(acquireDataDirLock(dir, 'cli migrate'), new RegExp(`in use by another process \\(pid ${process.pid}, npm start\\)`));
  await t.rejects(acquireDataDirLock(dir), DataDirLockedError);
  await lock.release();
  t.notOk(fs.existsSync(path.join(dir, '.lock')), 'release removes the socket');
  await (await acquireDataDirLock(dir)).release();
});

t.test('another process is refused while the holder lives', async (t) => {
  const dir = tmp(t);
  const lock = await acquireDataDirLock(dir, 'npm start');
  const { line } = await hold(dir);
  t.match(line, new RegExp(`refused: DATA_DIR .* in use by another process \\(pid ${process.pid}, npm start\\)`));
  await lock.release();
});

t.test('kill -9, then an immediate restart, 20 times in a row', async (t) => {
  const dir = tmp(t);
  let current = await hold(dir);
  t.match(current.line, /^locked/);
  let zombies = 0;
  for (let i = 0; i < 20; i++) {
    // No waiting for anything: the next process starts the moment the signal is sent.
    process.kill(current.pid, 'SIGKILL');
    const next = await hold(dir);
    if (isZombie(current.pid)) zombies++;
    if (!next.line.startsWith('locked')) {
      t.fail(`restart ${i + 1} refused: ${next.line}`);
      return;
    }
    current = next;
  }
  t.pass('20 restarts after kill -9 took the lock at once');
  if (process.platform === 'linux') t.equal(zombies, 20, 'each killed holder was still in the process table when its successor started');
  process.kill(current.pid, 'SIGKILL');
});

t.test('a socket file left by a dead holder is taken over; a long DATA_DIR path works', async (t) => {
  const dir = path.join(tmp(t), 'a'.repeat(60), 'b'.repeat(60));
  const { pid } = await hold(dir);
  process.kill(pid, 'SIGKILL');
  while (fs.existsSync(`/proc/${pid}`) && !isZombie(pid)) await new Promise((r) => setTimeout(r, 20));
  t.ok(fs.statSync(path.join(dir, '.lock')).isSocket(), 'the dead holder left its socket file');
  const lock = await acquireDataDirLock(dir);
  await t.rejects(acquireDataDirLock(dir), DataDirLockedError, 'and the new holder is seen through the long path');
  await lock.release();
});
