import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalHostAllowed, checkWebhookUrl, WebhookTargetError } from './webhook-target.js';
import { SIGNATURE_HEADER } from './signature.js';

/** Per the webhook rules: one attempt gives up after 5 s, connection and answer included. */
export const WEBHOOK_TIMEOUT_MS = 5_000;

export interface WebhookRequest { url: string; body: string; signature: string }

/** A delivery that must not be retried (the target is refused); any other error is retried. */
export class WebhookPermanentError extends Error {
  override name = 'WebhookPermanentError';
}

/**
 * POSTs one signed body. Resolves on a 2xx answer; a redirect is an error (never followed: it
 * could lead anywhere the SSRF rule forbids). The socket connects only to checked addresses
 * (webhook-target.ts) unless private targets are allowed.
 */
export function sendWebhook(req: WebhookRequest, opts: { allowPrivate: boolean; timeoutMs?: number }): Promise<number> {
  const checked = checkWebhookUrl(req.url, opts.allowPrivate);
  if (!checked.ok) return Promise.reject(new WebhookPermanentError(checked.message));
  const { url } = checked;
  if (!opts.allowPrivate && !literalHostAllowed(url)) return Promise.reject(new WebhookPermanentError('The webhook URL must not point to a loopback or private address.'));
  const client = url.protocol === 'https:' ? https : http;
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return new Promise<number>((resolve, reject) => {
    const request = client.request(url, {
      method: 'POST',
      agent: false,
      ...(opts.allowPrivate ? {} : { lookup: guardedLookup }),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(req.body),
        'user-agent': 'Chatlytics-Webhook/1',
        [SIGNATURE_HEADER]: req.signature,
      },
    }, (res) => {
      // The answer's body is not needed; reading it lets the socket close cleanly.
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve(status);
        else reject(new Error(`webhook answered ${status}`));
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => request.destroy(new Error(`webhook timed out after ${timeoutMs} ms`)), timeoutMs);
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err instanceof WebhookTargetError || (err as NodeJS.ErrnoException).code === 'EWEBHOOKTARGET' ? new WebhookPermanentError(err.message) : err);
    });
    request.end(req.body);
  });
}
