import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

/**
 * SESSION_SECRET when configured; otherwise one generated on first start and kept in DATA_DIR
 * (mode 0600), so sessions survive restarts without an operator having to invent a secret.
 */
export function resolveSessionSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'session-secret');
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = crypto.randomBytes(48).toString('base64url');
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
