import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM means the process exists but belongs to someone else: still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded engines (PGlite, chdb, the event log) each assume one writer process.
 * A pid file taken with O_EXCL refuses a second process; a file left by a killed
 * process (pid no longer alive) is taken over, so `kill -9` never needs manual clean-up.
 */
export function acquireDataDirLock(dataDir: string, owner = 'chatlytics'): { release(): void } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, owner, since: new Date().toISOString() }), { flag: 'wx' });
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try { fs.unlinkSync(file); } catch { /* already gone */ }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: { pid?: number; owner?: string } = {};
      try { holder = JSON.parse(fs.readFileSync(file, 'utf8')); } catch { /* torn write: treat as stale */ }
      if (holder.pid && holder.pid !== process.pid && alive(holder.pid)) {
        throw new DataDirLockedError(
          `DATA_DIR ${dataDir} is in use by another process (pid ${holder.pid}, ${holder.owner ?? 'unknown'}); stop it first or use another DATA_DIR`,
        );
      }
      try { fs.unlinkSync(file); } catch { /* raced with another taker */ }
    }
  }
  throw new DataDirLockedError(`DATA_DIR ${dataDir}: could not take the lock file`);
}
