import type { Config } from '@chatlytics/core';
import type { AlertKind } from '@chatlytics/postgres';
import type { MailTemplates } from '../mail/templates.js';
import type { MailTransport } from '../mail/transport.js';
import type { JobHandler } from '../jobs/worker.js';
import { describeCondition, describeValue } from './describe.js';
import { ALERT_MAIL_JOB } from './repository.js';

/**
 * The e-mail of an alert transition (templates alert-firing / alert-resolved), one job per user
 * of the account, sent by the dashboard's mail worker with its 3 attempts.
 */
export function alertMailHandlers(d: { templates: MailTemplates; transport: MailTransport; config: Pick<Config, 'mail'> }): Record<string, JobHandler> {
  const send: JobHandler = async (job) => {
    const p = job.payload as {
      email: string; state: 'firing' | 'resolved'; kind: AlertKind; chatbotName: string; value: number | null;
      threshold: number | null; windowMinutes: number; at: string; alertsUrl: string;
    };
    const mail = d.templates.render(p.state === 'firing' ? 'alert-firing' : 'alert-resolved', {
      chatbotName: p.chatbotName,
      condition: describeCondition(p),
      value: describeValue(p.kind, p.value),
      at: `${p.at.slice(0, 16).replace('T', ' ')} UTC`,
      alertsUrl: p.alertsUrl,
    });
    await d.transport.send({ to: p.email, ...mail, idempotencyKey: job.id });
    return { outcome: 'sent', payload: job.payload };
  };
  return { [ALERT_MAIL_JOB]: send };
}
