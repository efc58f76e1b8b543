import Type, { type Static } from 'typebox';
import type { AlertKind } from '@chatlytics/postgres';
import type { FieldErrors } from '../http/errors.js';
import { AlertKindSchema } from './presenter.js';
import { ALERT_DEFAULTS } from './rules.js';
import type { AlertInput } from './repository.js';
import { newAlertSecret } from './signature.js';
import { checkWebhookUrl } from './webhook-target.js';

/** 30 days: conversion_drop then reads 8 windows, 240 days back. */
export const MAX_WINDOW_MINUTES = 43_200;

const fields = {
  threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Percent (conversion_drop default 50, dislike_share default 30); not for silence or ab_mismatch' })),
  window_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_WINDOW_MINUTES, description: 'Default 120 for silence, else 1440' })),
  email: Type.Optional(Type.Boolean({ description: "E-mail the account's users on each transition (default false)" })),
  webhook_url: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], { description: 'http(s) URL POSTed on each transition; null removes it' })),
};
export const AlertCreateBody = Type.Object({ kind: AlertKindSchema, ...fields }, { additionalProperties: false });
export const AlertPatchBody = Type.Object(fields, { additionalProperties: false, minProperties: 1 });

const usesThreshold = (kind: AlertKind) => ALERT_DEFAULTS[kind].threshold !== null;

/** The checks the schema cannot make: a threshold only where it means something, a webhook URL allowed by the SSRF rule, A/B only with A/B testing. */
export function alertFieldErrors(kind: AlertKind, body: { threshold?: number; webhook_url?: string | null }, ctx: { allowPrivate: boolean; abTestEnabled: boolean }): FieldErrors {
  const errors: FieldErrors = {};
  if (body.threshold !== undefined && !usesThreshold(kind)) errors.threshold = [`The threshold field does not apply to ${kind} alerts.`];
  if (typeof body.webhook_url === 'string') {
    const checked = checkWebhookUrl(body.webhook_url, ctx.allowPrivate);
    if (!checked.ok) errors.webhook_url = [checked.message];
  }
  if (kind === 'ab_mismatch' && !ctx.abTestEnabled) errors.kind = ['ab_mismatch alerts need a chatbot with A/B testing.'];
  return errors;
}

/** A checked creation body as the row to store: the kind's defaults filled in, a new signing secret. */
export function newAlertInput(b: Static<typeof AlertCreateBody>): AlertInput {
  const defaults = ALERT_DEFAULTS[b.kind];
  return {
    kind: b.kind,
    threshold: defaults.threshold === null ? null : b.threshold ?? defaults.threshold,
    windowMinutes: b.window_minutes ?? defaults.windowMinutes,
    email: b.email ?? false,
    webhookUrl: b.webhook_url ?? null,
    secret: newAlertSecret(),
  };
}
