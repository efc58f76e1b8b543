import type { AlertKind } from '@chatlytics/postgres';
import type { FiredAlertsSource } from '../digest/index.js';
import type { AlertRepository } from './repository.js';

const NAMES: Record<AlertKind, string> = {
  silence: 'Silence',
  conversion_drop: 'Conversion drop',
  dislike_share: 'Dislike share',
  ab_mismatch: 'A/B mismatch',
};

/** What the figure meant when the alert fired, in the digest's words (the kinds: services/dashboard/README.md, "Alerts"). */
function detailOf(a: { kind: AlertKind; windowMinutes: number; threshold: number | null; value: number | null }): string {
  const window = `over ${a.windowMinutes} minutes`;
  const value = a.value === null ? '' : `${Math.round(a.value * 100) / 100}`;
  switch (a.kind) {
    case 'silence': return `no tracking event ${window}`;
    case 'conversion_drop': return `conversion with chat ${value} % of the week before ${window} (threshold ${a.threshold} %)`;
    case 'dislike_share': return `dislikes ${value} % of reactions ${window} (threshold ${a.threshold} %)`;
    case 'ab_mismatch': return `the A/B split is off 50/50 ${window}`;
  }
}

/** The weekly digest's "alerts that fired" read from the alerts' transitions. */
export function firedAlertsOf(alerts: Pick<AlertRepository, 'firedBetween'>): FiredAlertsSource {
  return async (chatbotId, from, to) => (await alerts.firedBetween(chatbotId, from, to))
    .map((a) => ({ name: NAMES[a.kind], firedAt: a.at, detail: detailOf(a) }));
}
