import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

const FILE = 'session-secret';

/**
 * For entry points when SESSION_SECRET is unset (CONTRACT §1): generated once and kept in
 * DATA_DIR so that sessions survive restarts. Readable by the owner only.
 */
export function loadOrCreateSessionSecret(dataDir: string): string {
  const file = path.join(dataDir, FILE);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  fs.writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}
