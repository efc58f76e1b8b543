import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { digestsEqual, sha256Hex } from '../crypto/credentials.js';

/** 32 bytes = 256 bits from the CSPRNG, base64url (43 characters, URL-safe without escaping). */
export const RESET_TOKEN_BYTES = 32;

export function newResetToken(): { token: string; hash: string } {
  const token = randomBytes(RESET_TOKEN_BYTES).toString('base64url');
  return { token, hash: sha256Hex(token) };
}

/** Whether a presented token matches the stored digest, compared in constant time. */
export function tokenMatches(presented: string, storedHash: string): boolean {
  return digestsEqual(sha256Hex(presented), storedHash);
}

/**
 * The mail job has to resend the same link on a retry, so it keeps the plain token, but sealed
 * (AES-256-GCM, key derived from the session secret): a copy of the database alone still
 * yields no usable token. The job's payload drops it once the e-mail is out.
 */
export interface TokenSealer {
  seal(token: string): string;
  /** Null when tampered with or sealed under another secret. */
  open(sealed: string): string | null;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createTokenSealer(secret: string): TokenSealer {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'chatlytics password-reset token seal', 32));
  return {
    seal(token) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    open(sealed) {
      const raw = Buffer.from(sealed, 'base64url');
      if (raw.length <= IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
