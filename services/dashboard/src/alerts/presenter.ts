import Type from 'typebox';
import { ALERT_KINDS } from '@chatlytics/postgres';
import { Nullable } from '../http/schemas.js';
import type { AlertRow, AlertTransitionRow } from './repository.js';

export const AlertKindSchema = Type.Union([
  Type.Literal(ALERT_KINDS[0]), Type.Literal(ALERT_KINDS[1]), Type.Literal(ALERT_KINDS[2]), Type.Literal(ALERT_KINDS[3]),
], { description: 'What the alert watches (services/dashboard/README.md, "Alerts")' });

export const AlertTransition = Type.Object({
  state: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
  value: Nullable(Type.Number()),
  at: Type.String({ format: 'date-time' }),
});

export const Alert = Type.Object({
  id: Type.String({ format: 'uuid' }),
  chatbot_id: Type.String({ format: 'uuid' }),
  kind: AlertKindSchema,
  threshold: Nullable(Type.Number({ description: 'Percent; null for silence and ab_mismatch' })),
  window_minutes: Type.Integer(),
  email: Type.Boolean(),
  webhook_url: Nullable(Type.String()),
  state: Type.Union([Type.Literal('ok'), Type.Literal('firing')]),
  last_value: Nullable(Type.Number({ description: 'The figure of the last evaluation (see the README)' })),
  last_evaluated_at: Nullable(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
  transitions: Type.Array(AlertTransition, { description: 'The last 20, newest first' }),
});

export function presentAlert(a: AlertRow, transitions: AlertTransitionRow[]) {
  return {
    id: a.id, chatbot_id: a.chatbotId, kind: a.kind, threshold: a.threshold, window_minutes: a.windowMinutes, email: a.email,
    webhook_url: a.webhookUrl, state: a.state, last_value: a.lastValue, last_evaluated_at: a.lastEvaluatedAt?.toISOString() ?? null,
    created_at: a.createdAt.toISOString(),
    transitions: transitions.map((t) => ({ state: t.state, value: t.value, at: t.at.toISOString() })),
  };
}
