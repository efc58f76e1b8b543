import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type CredentialKind = 'api_key' | 'token' | 'sql_key';

const PREFIX: Record<CredentialKind, string> = { api_key: 'ck_', token: 'ct_', sql_key: 'cs_' };

/** 32 random bytes = 256 bits, above the 128 bits the authentication rules in services/dashboard/docs/api.md ask for. */
const RANDOM_BYTES = 32;

/** A new plain credential (`ck_…`, `ct_…` or the SQL interface's `cs_…`); shown once, only its digest is stored. */
export function generateCredential(kind: CredentialKind): string {
  return PREFIX[kind] + randomBytes(RANDOM_BYTES).toString('base64url');
}

export function credentialKind(plain: string): CredentialKind | null {
  if (plain.startsWith(PREFIX.api_key)) return 'api_key';
  if (plain.startsWith(PREFIX.token)) return 'token';
  if (plain.startsWith(PREFIX.sql_key)) return 'sql_key';
  return null;
}

/** SHA-256 hex: the only form in which credentials, session ids and reset tokens are stored. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** What a key list shows: enough to tell keys apart, far too little to use one. */
export function displayPrefix(plain: string): string {
  return plain.slice(0, 7);
}

/** A random opaque id (sessions, reset tokens), base64url. */
export function randomId(bytes = RANDOM_BYTES): string {
  return randomBytes(bytes).toString('base64url');
}
