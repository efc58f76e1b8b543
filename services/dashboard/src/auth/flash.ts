import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FieldErrors } from '../http/errors.js';

/**
 * One-request messages for redirect-style form posts ("redirect back with an error"):
 * stored in a short-lived signed cookie and consumed by the next page that reads it.
 */
export interface Flash {
  status?: string;
  errors?: FieldErrors;
  /** Previous input to refill a form with (never passwords). */
  old?: Record<string, string>;
}

export const FLASH_COOKIE = 'chatlytics_flash';
/** Long enough to follow a redirect, short enough that a stale message never resurfaces. */
const FLASH_MAX_AGE_SECONDS = 60;

export function setFlash(reply: FastifyReply, flash: Flash, policy: { secure: boolean }): void {
  reply.setCookie(FLASH_COOKIE, JSON.stringify(flash), {
    path: '/', httpOnly: true, sameSite: 'lax', secure: policy.secure, signed: true, maxAge: FLASH_MAX_AGE_SECONDS,
  });
}

/** Read and clear the flash; null when none or tampered with. */
export function takeFlash(req: FastifyRequest, reply: FastifyReply): Flash | null {
  const raw = req.cookies?.[FLASH_COOKIE];
  if (!raw) return null;
  reply.clearCookie(FLASH_COOKIE, { path: '/' });
  const unsigned = req.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return null;
  try {
    const value = JSON.parse(unsigned.value);
    return value && typeof value === 'object' ? (value as Flash) : null;
  } catch {
    return null;
  }
}
