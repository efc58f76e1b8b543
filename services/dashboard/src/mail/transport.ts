import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Resend } from 'resend';
import type { Config } from '@chatlytics/core';
import { DeliveryErrors } from '../http/errors.js';
import type { FastifyBaseLogger } from 'fastify';

export interface OutgoingMail {
  to: string;
  subject: string;
  html: string;
  text: string;
  /**
   * The provider's stored template and its variables, used instead of html/text when the
   * deployment configures one (RESEND_TEMPLATE_ID, the password reset rules in services/dashboard/README.md).
   */
  providerTemplate?: { id: string; variables: Record<string, string> };
  /** The job id: a retried job is the same e-mail, which the provider then sends once. */
  idempotencyKey: string;
  /** Extra headers, e.g. List-Unsubscribe of the weekly digest (RFC 2369, RFC 8058). */
  headers?: Record<string, string>;
}

export interface MailTransport {
  readonly kind: 'resend' | 'outbox';
  /** Resolves once the e-mail is accepted; throws a retriable error otherwise. */
  send(mail: OutgoingMail): Promise<void>;
}

export const RESEND_DEFAULT_BASE_URL = 'https://api.resend.com';

/**
 * The real `resend` SDK. Its constructor falls back to process.env.RESEND_BASE_URL and
 * RESEND_USER_AGENT; both are passed explicitly so that nothing below the entry point reads
 * the environment (RESEND_BASE_URL arrives through config.mail.resendBaseUrl instead).
 */
export function createResendTransport(opts: { apiKey: string; baseUrl?: string; from: string }): MailTransport {
  const resend = new Resend(opts.apiKey, { baseUrl: (opts.baseUrl ?? RESEND_DEFAULT_BASE_URL).replace(/\/+$/, ''), userAgent: 'chatlytics-dashboard' });
  return {
    kind: 'resend',
    async send(mail) {
      const base = { from: opts.from, to: mail.to, subject: mail.subject, ...(mail.headers ? { headers: mail.headers } : {}) };
      const payload = mail.providerTemplate
        ? { ...base, template: { id: mail.providerTemplate.id, variables: mail.providerTemplate.variables } }
        : { ...base, html: mail.html, text: mail.text };
      // The SDK reports failures in `error` rather than throwing (network errors included).
      const { error } = await resend.emails.send(payload, { idempotencyKey: mail.idempotencyKey });
      if (error) throw DeliveryErrors.mailFailed(`${error.name} (${(error as { statusCode?: number | null }).statusCode ?? 'no status'}): ${error.message}`);
    },
  };
}

/** What the outbox holds per e-mail (see the e-mail rules in services/dashboard/README.md). */
export interface OutboxMail {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Only when the e-mail has extra headers. */
  headers?: Record<string, string>;
  sentAt: string;
}

/**
 * Without a provider key: each e-mail becomes one JSON file in DATA_DIR/mail-outbox/. Written
 * to a temporary name and renamed, so a reader never sees half a file. File names sort by time.
 */
export function createOutboxTransport(opts: { dir: string; log: FastifyBaseLogger; clock?: () => Date }): MailTransport {
  const clock = opts.clock ?? (() => new Date());
  return {
    kind: 'outbox',
    async send(mail) {
      await fs.mkdir(opts.dir, { recursive: true });
      const sentAt = clock();
      const body: OutboxMail = {
        to: mail.to, subject: mail.subject, html: mail.html, text: mail.text, ...(mail.headers ? { headers: mail.headers } : {}), sentAt: sentAt.toISOString(),
      };
      const name = `${sentAt.toISOString().replace(/[:.]/g, '-')}-${mail.idempotencyKey}.json`;
      const tmp = path.join(opts.dir, `.${name}.${randomBytes(4).toString('hex')}.tmp`);
      await fs.writeFile(tmp, JSON.stringify(body, null, 2));
      await fs.rename(tmp, path.join(opts.dir, name));
      // `to` is redacted by the logger; the file name identifies the e-mail.
      opts.log.info({ to: mail.to, subject: mail.subject, file: name }, 'e-mail written to the outbox');
    },
  };
}

export const OUTBOX_DIR = 'mail-outbox';

/** The transport that the e-mail rules in services/dashboard/README.md select: Resend with a key, else the outbox under DATA_DIR. */
export function createMailTransport(config: Config, log: FastifyBaseLogger): MailTransport {
  const { resendApiKey, resendBaseUrl, from } = config.mail;
  if (resendApiKey) return createResendTransport({ apiKey: resendApiKey, baseUrl: resendBaseUrl, from });
  return createOutboxTransport({ dir: path.join(config.dataDir, OUTBOX_DIR), log });
}
