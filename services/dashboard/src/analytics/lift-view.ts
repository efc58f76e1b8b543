import { fmtInt } from '../html/format.js';
import type { Money } from '../html/money.js';
import { html, type RawHtml } from '../html/html.js';
import type { Answer } from '../stats/run.js';
import type { lift } from '../stats/statistics/index.js';

export type LiftAnswer = Answer<typeof lift>;

/**
 * What the lift statistic says in plain words (the analytics page's lead and the digest): the
 * money the assistant added with its 95 % interval, and the caveats a shop owner needs before
 * acting on it: an interval that includes 0 cannot tell the effect from chance, and a split that
 * does not match the configured share means the measurement itself is broken.
 */
export function liftSummary(l: LiftAnswer, money: Money): { headline: string; caveats: string[] } {
  const { value, ci95 } = l.incremental_revenue;
  const headline = `The assistant added ${money(value)} (95 %: ${money(ci95.lower)} – ${money(ci95.upper)}) this period.`;
  const caveats: string[] = [];
  if (l.sample_ratio_mismatch) {
    caveats.push(`The split does not match the holdout of ${l.holdout_percent} % (${fmtInt(l.exposed.visitors)} exposed, ${fmtInt(l.holdout.visitors)} held out): `
      + 'the widget or the tracking is not treating both groups alike, so this figure cannot be trusted until that is fixed.');
  }
  if (ci95.lower <= 0 && ci95.upper >= 0) {
    const more = l.visitors_needed === null ? '' : ` About ${fmtInt(l.visitors_needed)} more visitors would show a difference this size.`;
    caveats.push(`The range includes ${money(0)}: with this many visitors the assistant's effect cannot yet be told apart from chance.${more}`);
  }
  return { headline, caveats };
}

/** The analytics page's lead when the chatbot runs a holdout. */
export function liftLead(l: LiftAnswer, money: Money): RawHtml {
  const { headline, caveats } = liftSummary(l, money);
  return html`<section class="lift" aria-labelledby="h-lift"><h2 id="h-lift">What the assistant adds</h2>
<p class="lead" data-stat="lift.incremental_revenue" data-value="${l.incremental_revenue.value}">${headline}</p>
${caveats.map((c) => html`<p class="caveat" role="note">${c}</p>`)}
<p class="hint">Compared with the ${l.holdout_percent} % of visitors who do not see the assistant: ${fmtInt(l.exposed.visitors)} exposed, ${fmtInt(l.holdout.visitors)} held out.</p></section>`;
}
