import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

export interface DataDirLock {
  release(): Promise<void>;
}

interface Holder { pid: number; owner: string; since: string; nonce: string }

/** sun_path holds 108 bytes on Linux, 104 on macOS; longer paths are reached through a short link. */
const MAX_SOCKET_PATH = 100;

/**
 * The socket path for `file`: itself when short enough, else the same file reached through a
 * short symlink to its directory in the temp dir (the socket still lives in DATA_DIR).
 */
function socketPath(file: string): string {
  if (Buffer.byteLength(file) <= MAX_SOCKET_PATH) return file;
  const dir = path.dirname(file);
  const link = path.join(os.tmpdir(), `chatlytics-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`);
  try {
    fs.symlinkSync(dir, link);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || fs.readlinkSync(link) !== dir) throw err;
  }
  return path.join(link, path.basename(file));
}

/**
 * Who listens on the socket, or undefined when nobody does: a socket file left by a dead holder
 * refuses the connection, and a holder dying right now closes it without an answer.
 */
function holderOf(sock: string): Promise<Holder | undefined> {
  return new Promise((resolve, reject) => {
    const conn = net.connect(sock);
    let text = '';
    conn.setEncoding('utf8');
    // A live holder answers at once; one that does not for this long is alive but stuck.
    conn.setTimeout(5000, () => { conn.destroy(); resolve({ pid: 0, owner: 'not answering', since: '', nonce: '' }); });
    conn.on('data', (chunk) => { text += chunk; });
    conn.on('end', () => {
      try { resolve(JSON.parse(text) as Holder); } catch { resolve(undefined); }
    });
    conn.on('error', (err: NodeJS.ErrnoException) => {
      if (['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE'].includes(err.code ?? '')) resolve(undefined);
      else reject(err);
    });
  });
}

function listen(server: net.Server, sock: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(sock, () => { server.off('error', reject); resolve(); });
  });
}

const lockedError = (dataDir: string, holder: Holder) => new DataDirLockedError(
  `DATA_DIR ${dataDir} is in use by another process (pid ${holder.pid}, ${holder.owner}); stop it first or use another DATA_DIR`,
);

/**
 * The embedded engines (PGlite, chdb, the event log) each assume one writer process. The lock
 * is a Unix socket `.lock` in DATA_DIR that the holder listens on for its lifetime: the kernel
 * closes it the moment the holder dies (kill -9 included), so a restart never waits for a dying
 * or reused pid. A second process's bind fails (EADDRINUSE) while the holder lives; connecting
 * then tells a live holder (it answers with its pid and role) from a socket file left by a dead
 * one (ECONNREFUSED), which is removed and bound again.
 *
 * Two processes clearing the same stale file at once could each remove the other's fresh
 * socket, so every taker checks after binding that the socket answers with its own nonce.
 */
export async function acquireDataDirLock(dataDir: string, owner = 'chatlytics'): Promise<DataDirLock> {
  fs.mkdirSync(dataDir, { recursive: true });
  const sock = socketPath(path.join(fs.realpathSync(dataDir), '.lock'));
  const me: Holder = { pid: process.pid, owner, since: new Date().toISOString(), nonce: randomBytes(12).toString('hex') };
  const server = net.createServer((conn) => conn.end(JSON.stringify(me)));
  // The lock must not keep a process alive that has nothing else to do.
  server.unref();
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await listen(server, sock);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      const holder = await holderOf(sock);
      if (holder) throw lockedError(dataDir, holder);
      try { fs.unlinkSync(sock); } catch { /* another taker removed it first */ }
      continue;
    }
    const answering = await holderOf(sock);
    if (answering?.nonce !== me.nonce) {
      // Our socket file was replaced by a concurrent taker: it holds the lock, not us. The
      // server stays open (unreferenced, until this process exits): closing it would unlink
      // the path, which is now the winner's socket.
      throw lockedError(dataDir, answering ?? { ...me, pid: 0, owner: 'unknown' });
    }
    let released: Promise<void> | undefined;
    return {
      release() {
        // Closing the listening socket removes its file; the kernel would release it anyway at exit.
        released ??= new Promise<void>((resolve) => server.close(() => resolve()));
        return released;
      },
    };
  }
  throw new DataDirLockedError(`DATA_DIR ${dataDir}: could not take the lock`);
}
