import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * How the CLI reaches a running `npm start` on the same DATA_DIR: the server writes its address
 * and a random admin credential here (mode 0600, so only the account that owns DATA_DIR can
 * read it), draws a new credential on every start and removes the file on close.
 */
export const ADMIN_ENDPOINT_FILE = 'admin-endpoint.json';

export interface AdminEndpoint {
  url: string;
  credential: string;
  pid: number;
}

/** 256 random bits, like every other credential of the project; `ca_` tells it apart in logs. */
export const generateAdminCredential = () => `ca_${randomBytes(32).toString('base64url')}`;

const fileOf = (dataDir: string) => path.join(dataDir, ADMIN_ENDPOINT_FILE);

/** Written to a temporary name then renamed: a CLI never reads half a file. */
export function writeAdminEndpoint(dataDir: string, endpoint: AdminEndpoint): void {
  const tmp = `${fileOf(dataDir)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(endpoint), { mode: 0o600 });
  fs.renameSync(tmp, fileOf(dataDir));
}

export function readAdminEndpoint(dataDir: string): AdminEndpoint | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(fileOf(dataDir), 'utf8')) as Partial<AdminEndpoint>;
    return typeof parsed.url === 'string' && typeof parsed.credential === 'string' ? (parsed as AdminEndpoint) : null;
  } catch {
    return null;
  }
}

/** Removes the file only while it is still this server's: a newer server's file stays. */
export function removeAdminEndpoint(dataDir: string, credential: string): void {
  if (readAdminEndpoint(dataDir)?.credential !== credential) return;
  fs.rmSync(fileOf(dataDir), { force: true });
}

/** The URL a local client uses for a listening address: a wildcard bind is reached over loopback. */
export function localUrl(address: { address: string; family: string; port: number }): string {
  if (address.address === '0.0.0.0') return `http://127.0.0.1:${address.port}`;
  if (address.address === '::') return `http://[::1]:${address.port}`;
  return address.family === 'IPv6' ? `http://[${address.address}]:${address.port}` : `http://${address.address}:${address.port}`;
}
