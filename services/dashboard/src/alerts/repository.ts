import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import {
  alerts, alertTransitions, chatbots, jobs, users, type AlertKind, type AlertState, type Database,
} from '@chatlytics/postgres';
import { createJobQueue } from '../jobs/queue.js';
import { signBody } from './signature.js';
import { WEBHOOK_JOB, type WebhookPayload } from './webhook-job.js';

export type AlertRow = typeof alerts.$inferSelect;
export type AlertTransitionRow = typeof alertTransitions.$inferSelect;
export type AlertTransitionState = AlertTransitionRow['state'];

/** Per the app and API: each alert shows its last 20 transitions. */
export const TRANSITIONS_SHOWN = 20;
/** Kind of the alert notices' e-mail jobs (mail.ts handles them). */
export const ALERT_MAIL_JOB = 'alert_notification';

export interface AlertInput {
  kind: AlertKind;
  threshold: number | null;
  windowMinutes: number;
  email: boolean;
  webhookUrl: string | null;
  secret: string;
}
export type AlertPatch = Partial<Pick<AlertInput, 'threshold' | 'windowMinutes' | 'email' | 'webhookUrl'>>;

/** An alert as the evaluator sees it: with its chatbot's account, name and A/B setting. */
export interface EvaluatedAlert extends AlertRow { accountId: string; chatbotName: string; abTestEnabled: boolean }

/** The webhook's JSON body (services/dashboard/docs/api.md, "Webhook"), in this field order. */
export function webhookBody(a: Pick<AlertRow, 'id' | 'chatbotId' | 'kind' | 'threshold' | 'windowMinutes'>, state: AlertTransitionState, value: number | null, at: Date): string {
  return JSON.stringify({
    alert_id: a.id, chatbot_id: a.chatbotId, kind: a.kind, state, value, threshold: a.threshold, window_minutes: a.windowMinutes, at: at.toISOString(),
  });
}

/** Alerts and their transitions, always reached through a chatbot the caller has already checked. */
export function createAlertRepository({ db }: { db: Database }) {
  const ofChatbot = (chatbotId: string, alertId: string) => and(eq(alerts.chatbotId, chatbotId), eq(alerts.id, alertId));

  return {
    async listForChatbot(chatbotId: string): Promise<AlertRow[]> {
      return db.select().from(alerts).where(eq(alerts.chatbotId, chatbotId)).orderBy(asc(alerts.createdAt), asc(alerts.id));
    },

    async find(chatbotId: string, alertId: string): Promise<AlertRow | null> {
      const [row] = await db.select().from(alerts).where(ofChatbot(chatbotId, alertId)).limit(1);
      return row ?? null;
    },

    /** The last TRANSITIONS_SHOWN transitions of each alert, newest first. */
    async recentTransitions(alertIds: string[]): Promise<Map<string, AlertTransitionRow[]>> {
      const byAlert = new Map<string, AlertTransitionRow[]>(alertIds.map((id) => [id, []]));
      if (alertIds.length === 0) return byAlert;
      const ranked = db.select({
        id: alertTransitions.id, alertId: alertTransitions.alertId, state: alertTransitions.state, value: alertTransitions.value, at: alertTransitions.at,
        rank: sql<number>`row_number() over (partition by ${alertTransitions.alertId} order by ${alertTransitions.at} desc, ${alertTransitions.id} desc)`.as('rank'),
      }).from(alertTransitions).where(inArray(alertTransitions.alertId, alertIds)).as('ranked');
      const rows = await db.select().from(ranked).where(sql`${ranked.rank} <= ${TRANSITIONS_SHOWN}`).orderBy(desc(ranked.at), desc(ranked.id));
      for (const { rank: _rank, ...r } of rows) byAlert.get(r.alertId)?.push(r);
      return byAlert;
    },

    /** created_at is the database's time: the list's order is the order of creation even under a pinned clock. */
    /** The chatbot's alerts that went `firing` in [from, to], oldest first: the weekly digest's list. */
    async firedBetween(chatbotId: string, from: Date, to: Date): Promise<{ kind: AlertKind; windowMinutes: number; threshold: number | null; value: number | null; at: Date }[]> {
      return db.select({
        kind: alerts.kind, windowMinutes: alerts.windowMinutes, threshold: alerts.threshold, value: alertTransitions.value, at: alertTransitions.at,
      }).from(alertTransitions).innerJoin(alerts, eq(alerts.id, alertTransitions.alertId))
        .where(and(eq(alerts.chatbotId, chatbotId), eq(alertTransitions.state, 'firing'), sql`${alertTransitions.at} between ${from} and ${to}`))
        .orderBy(asc(alertTransitions.at), asc(alertTransitions.id));
    },

    async create(chatbotId: string, input: AlertInput): Promise<AlertRow> {
      const [row] = await db.insert(alerts).values({ chatbotId, ...input }).returning();
      return row;
    },

    async update(chatbotId: string, alertId: string, patch: AlertPatch, now: Date): Promise<AlertRow | null> {
      const [row] = await db.update(alerts).set({ ...patch, updatedAt: now }).where(ofChatbot(chatbotId, alertId)).returning();
      return row ?? null;
    },

    /** With the alert go its transitions and its webhook deliveries, sent or not (a deleted alert notifies no more). */
    async delete(chatbotId: string, alertId: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        const rows = await tx.delete(alerts).where(ofChatbot(chatbotId, alertId)).returning({ id: alerts.id });
        if (rows.length === 0) return false;
        await tx.delete(jobs).where(and(eq(jobs.kind, WEBHOOK_JOB), sql`${jobs.payload}->>'alertId' = ${alertId}`));
        return true;
      });
    },

    async listForEvaluation(): Promise<EvaluatedAlert[]> {
      const rows = await db.select({ alert: alerts, accountId: chatbots.accountId, chatbotName: chatbots.name, settings: chatbots.settings })
        .from(alerts).innerJoin(chatbots, eq(chatbots.id, alerts.chatbotId)).orderBy(asc(alerts.id));
      return rows.map((r) => ({ ...r.alert, accountId: r.accountId, chatbotName: r.chatbotName, abTestEnabled: r.settings?.abTestEnabled === true }));
    },

    /** The figure of an evaluation that changed nothing (shown in the app). */
    async recordEvaluation(alertId: string, value: number | null, at: Date): Promise<void> {
      await db.update(alerts).set({ lastValue: value, lastEvaluatedAt: at }).where(eq(alerts.id, alertId));
    },

    /**
     * Moves the alert from `from` to `to` and queues its notifications, in one transaction
     * guarded by a compare-and-set on the state: of several evaluators that saw the same change
     * only one records it (the others' update matches no row), so each transition is recorded
     * and notified exactly once. Null when the state was no longer `from`.
     */
    async transition(a: EvaluatedAlert, to: AlertState, value: number | null, at: Date, mail: { queueNow: Date; appUrl: string }):
      Promise<AlertTransitionRow | null> {
      const state: AlertTransitionState = to === 'firing' ? 'firing' : 'resolved';
      return db.transaction(async (tx) => {
        const moved = await tx.update(alerts).set({ state: to, lastValue: value, lastEvaluatedAt: at, updatedAt: at })
          .where(and(eq(alerts.id, a.id), eq(alerts.state, a.state))).returning({ id: alerts.id });
        if (moved.length === 0) return null;
        const [transition] = await tx.insert(alertTransitions).values({ alertId: a.id, state, value, at }).returning();
        const queue = createJobQueue({ db: tx });
        if (a.webhookUrl) {
          const body = webhookBody(a, state, value, at);
          const delivery: WebhookPayload = { alertId: a.id, transitionId: transition.id, url: a.webhookUrl, body, signature: signBody(a.secret, body) };
          await queue.enqueue(WEBHOOK_JOB, { ...delivery }, mail.queueNow);
        }
        if (a.email) {
          const recipients = await tx.select({ email: users.email }).from(users).where(eq(users.accountId, a.accountId)).orderBy(asc(users.email));
          for (const { email } of recipients) {
            await queue.enqueue(ALERT_MAIL_JOB, {
              email, state, kind: a.kind, chatbotName: a.chatbotName, value, threshold: a.threshold, windowMinutes: a.windowMinutes,
              at: at.toISOString(), alertsUrl: `${mail.appUrl}/app/${a.chatbotId}/alerts`,
            }, mail.queueNow);
          }
        }
        return transition;
      });
    },
  };
}
export type AlertRepository = ReturnType<typeof createAlertRepository>;
