import { createHmac, randomBytes } from 'node:crypto';

/** The header of every webhook request: `sha256=<hex HMAC-SHA256 of the raw body with the alert's secret>`. */
export const SIGNATURE_HEADER = 'X-Chatlytics-Signature';

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** An alert's signing secret: shown once, at creation; kept in clear because signing needs it. */
export function newAlertSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}
