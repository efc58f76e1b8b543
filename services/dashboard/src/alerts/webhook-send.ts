import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalHostAllowed, checkWebhookUrl, WebhookTargetError } from './webhook-target.js';
import { SIGNATURE_HEADER } from './signature.js';
import { DeliveryErrors } from '../http/errors.js';

/** Per the webhook rules: one attempt gives up after 5 s, connection and answer included. */
export const WEBHOOK_TIMEOUT_MS = 5_000;

export interface WebhookRequest { url: string; body: string; signature: string }

const { webhookFailed, webhookRefused } = DeliveryErrors;

/**
 * POSTs one signed body. Resolves on a 2xx answer; a redirect is an error (never followed: it
 * could lead anywhere the SSRF rule forbids). The socket connects only to checked addresses
 * (webhook-target.ts) unless private targets are allowed.
 */
export function sendWebhook(req: WebhookRequest, opts: { allowPrivate: boolean; timeoutMs?: number }): Promise<number> {
  const checked = checkWebhookUrl(req.url, opts.allowPrivate);
  if (!checked.ok) return Promise.reject(webhookRefused(checked.message));
  const { url } = checked;
  if (!opts.allowPrivate && !literalHostAllowed(url)) return Promise.reject(webhookRefused('The webhook URL must not point to a loopback or private address.'));
  const client = url.protocol === 'https:' ? https : http;
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return new Promise<number>((resolve, reject) => {
    // Settled once: a timeout after the answer's head, or an error after it, must not settle again.
    let settled = false;
    const finish = (err: Error | null, status = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err instanceof WebhookTargetError || (err as NodeJS.ErrnoException).code === 'EWEBHOOKTARGET' ? webhookRefused(err.message) : err);
      else resolve(status);
    };
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
      const status = res.statusCode ?? 0;
      // The answer's body is not needed; reading it lets the socket close cleanly.
      res.resume();
      res.on('end', () => finish(status >= 200 && status < 300 ? null : webhookFailed(`answered ${status}`), status));
      res.on('error', (err) => finish(err));
      res.on('close', () => finish(webhookFailed('the answer was cut off')));
    });
    const timer = setTimeout(() => {
      const err = webhookFailed(`timed out after ${timeoutMs} ms`);
      finish(err);
      request.destroy(err);
    }, timeoutMs);
    request.on('error', (err) => finish(err));
    request.end(req.body);
  });
}
