import { MINUTE_MS } from '@chatlytics/core';
import type { AlertKind, AlertState } from '@chatlytics/postgres';
import { sampleRatioMismatch } from '../stats/ab-significance.js';
import { percent, round2 } from '../stats/numbers.js';
import type { StatsWindow } from '../stats/window.js';

/**
 * What each alert kind watches and when it fires (services/dashboard/README.md, "Alerts").
 * Pure functions of the figures and the `now` they are given: the evaluator reads the figures,
 * these decide, and tests pin both.
 */
export const ALERT_DEFAULTS: Record<AlertKind, { windowMinutes: number; threshold: number | null }> = {
  silence: { windowMinutes: 120, threshold: null },
  conversion_drop: { windowMinutes: 1440, threshold: 50 },
  dislike_share: { windowMinutes: 1440, threshold: 30 },
  ab_mismatch: { windowMinutes: 1440, threshold: null },
};

/** conversion_drop compares with the 7 windows before the current one, which need this many chatted visitors. */
export const CONVERSION_BASELINE_WINDOWS = 7;
export const CONVERSION_MIN_BASELINE_CHATTED = 30;
/** dislike_share needs this many reactions in the window. */
export const DISLIKE_MIN_REACTIONS = 20;

export interface AlertRule {
  kind: AlertKind;
  threshold: number | null;
  windowMinutes: number;
}

/** The figures each kind is decided on; the evaluator reads them (figures.ts). */
export type AlertFigures =
  | { kind: 'silence'; events: number }
  | { kind: 'conversion_drop'; current: ChatFunnel; baseline: ChatFunnel }
  | { kind: 'dislike_share'; likes: number; dislikes: number }
  | { kind: 'ab_mismatch'; abTestEnabled: boolean; controlVisitors: number; testVisitors: number };

/** The purchases statistic's figures behind conversion_rate_with_chat. */
export interface ChatFunnel { chatted: number; chattedPurchased: number }

export interface AlertDecision {
  state: AlertState;
  /** The figure compared with the threshold (see valueOf in the README); null when there was not enough data to compute it. */
  value: number | null;
}

/** The current window W = [now − window, now], both ends included like every statistic's window. */
export function currentWindow(rule: Pick<AlertRule, 'windowMinutes'>, now: Date): StatsWindow {
  return { from: new Date(now.getTime() - rule.windowMinutes * MINUTE_MS), to: new Date(now.getTime()) };
}

/** conversion_drop's baseline: the 7 windows right before W, as one span that ends 1 ms before W starts. */
export function baselineWindow(rule: Pick<AlertRule, 'windowMinutes'>, now: Date): StatsWindow {
  const span = rule.windowMinutes * MINUTE_MS;
  return { from: new Date(now.getTime() - (CONVERSION_BASELINE_WINDOWS + 1) * span), to: new Date(now.getTime() - span - 1) };
}

/** conversion_rate_with_chat exactly as the purchases statistic computes it (percent, 2 decimals, 0 for no chatted visitor). */
export const conversionRateWithChat = (f: ChatFunnel) => percent(f.chattedPurchased, f.chatted);

const ok = (value: number | null): AlertDecision => ({ state: 'ok', value });
const firing = (value: number | null): AlertDecision => ({ state: 'firing', value });

export function decide(rule: AlertRule, figures: AlertFigures): AlertDecision {
  if (figures.kind !== rule.kind) throw new Error(`figures of ${figures.kind} given for a ${rule.kind} alert`);
  switch (figures.kind) {
    case 'silence':
      // value: the events in W. None at all, not even a page view: the widget is not on the shop.
      return figures.events === 0 ? firing(0) : ok(figures.events);
    case 'conversion_drop': {
      const { current, baseline } = figures;
      // Too little history to call anything a drop, or nothing to drop from.
      if (baseline.chatted < CONVERSION_MIN_BASELINE_CHATTED) return ok(null);
      const baselineRate = conversionRateWithChat(baseline);
      if (baselineRate === 0) return ok(null);
      // Nobody chatted in W: the rate is undefined there (the statistic's 0 is a convention),
      // which says nothing about the assistant's answers; the silence alert covers no traffic.
      if (current.chatted === 0) return ok(null);
      // value: W's rate as a percentage of the baseline's; fires strictly below the threshold.
      const value = round2((conversionRateWithChat(current) / baselineRate) * 100);
      return conversionRateWithChat(current) * 100 < (rule.threshold ?? 0) * baselineRate ? firing(value) : ok(value);
    }
    case 'dislike_share': {
      const reactions = figures.likes + figures.dislikes;
      if (reactions < DISLIKE_MIN_REACTIONS) return ok(reactions === 0 ? null : percent(figures.dislikes, reactions));
      // value: dislikes as a percentage of reactions; fires at or above the threshold (compared unrounded).
      const value = percent(figures.dislikes, reactions);
      return figures.dislikes * 100 >= (rule.threshold ?? 0) * reactions ? firing(value) : ok(value);
    }
    case 'ab_mismatch': {
      if (!figures.abTestEnabled) return ok(null);
      // value: the purchases statistic's sample_ratio_p_value (the mismatch is p < 0.001).
      const srm = sampleRatioMismatch(figures.controlVisitors, figures.testVisitors);
      return srm.mismatch ? firing(Number(srm.pValue.toFixed(6))) : ok(Number(srm.pValue.toFixed(6)));
    }
  }
}
