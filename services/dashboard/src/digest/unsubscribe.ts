import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signed one-click unsubscribe link of the weekly digest: an HMAC-SHA256 of the purpose and
 * the user id, under a key derived from the session secret (never the secret itself, so a
 * signature here says nothing about cookie signatures and the reverse). Whoever holds the link
 * may switch that user's digest off, and nothing else.
 */
const PURPOSE = 'weekly-digest-unsubscribe';
export const UNSUBSCRIBE_PATH = '/unsubscribe/weekly-digest';

export function createUnsubscribeSigner(sessionSecret: string) {
  const key = createHmac('sha256', sessionSecret).update('chatlytics/unsubscribe-key/v1').digest();
  const sign = (userId: string) => createHmac('sha256', key).update(`${PURPOSE}\n${userId}`).digest('base64url');
  return {
    sign,
    verify(userId: string, signature: string): boolean {
      const expected = Buffer.from(sign(userId));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    /** Built from APP_URL, never from a request's Host. */
    link: (appUrl: string, userId: string) => `${appUrl}${UNSUBSCRIBE_PATH}?u=${encodeURIComponent(userId)}&s=${sign(userId)}`,
  };
}
export type UnsubscribeSigner = ReturnType<typeof createUnsubscribeSigner>;
