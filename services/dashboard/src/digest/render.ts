import { escapeHtml } from '../html/html.js';
import type { RenderedMail } from '../mail/templates.js';
import type { ChatbotDigest, Compared, DigestContent } from './content.js';
import { directionOf, fmtInt, fmtPercent, headlineChange, pointChange } from '../html/format.js';
import { conversionNote, moneyIn } from '../html/money.js';

export interface DigestMailInput {
  content: DigestContent;
  appUrl: string;
  unsubscribeUrl: string;
}

type Direction = ReturnType<typeof directionOf>;
interface Row { label: string; value: string; previous: string; change: string; dir: Direction }

/**
 * A figure of the week beside the week before in the analytics page's headline notation
 * (headlineChange): percent for counts and money, "new" from a tiny week, "—" for two empty ones;
 * a rate's change in percentage points.
 */
function row(label: string, { current, previous }: Compared, format: (n: number) => string, points = false): Row {
  const change = headlineChange(current, previous);
  const dir: Direction = change.kind === 'new' ? 'up' : change.kind === 'none' ? 'same' : change.kind;
  return { label, value: format(current), previous: format(previous), change: points ? pointChange(current, previous) : change.text, dir };
}

function rows(bot: ChatbotDigest): Row[] {
  return [
    row('Visitors', bot.visitors, fmtInt),
    row('Analysed conversations', bot.conversations, fmtInt),
    row('Conversion with chat', bot.conversionWithChat, fmtPercent, true),
    row('Revenue after chat', bot.revenueAfterChat, moneyIn(bot.currency)),
  ];
}

/** The chatbot's analytics for exactly the digest's days, so the page shows the e-mail's figures. */
export const weekLink = (appUrl: string, botId: string, c: DigestContent) =>
  `${appUrl}/app/${encodeURIComponent(botId)}/analytics?${new URLSearchParams({ from: c.windows.current.from, to: c.windows.current.to })}`;

const period = (c: DigestContent) => `${c.windows.current.from} to ${c.windows.current.to}`;
const subjectOf = (c: DigestContent) => `Your Chatlytics week: ${period(c)}`;
const plural = (n: number, word: string) => `${fmtInt(n)} ${word}${n === 1 ? '' : 's'}`;

// ---- plain text -------------------------------------------------------------------------

function textOf(input: DigestMailInput): string {
  const { content } = input;
  const lines = [
    'Your Chatlytics week',
    `${period(content)} (UTC), compared with ${content.windows.previous.from} to ${content.windows.previous.to}.`,
    '',
  ];
  if (content.chatbots.length === 0) lines.push('Your account has no chatbot yet.', '');
  for (const bot of content.chatbots) {
    lines.push(`== ${plainText(bot.name)} ==`);
    if (bot.lift) lines.push(bot.lift.headline, ...bot.lift.caveats, '');
    for (const r of rows(bot)) lines.push(`${r.label}: ${r.value} (previous 7 days: ${r.previous}; ${r.change})`);
    if (bot.revenueRule) lines.push(`Revenue counted from ${bot.revenueRule}.`);
    if (conversionNote(bot.currency)) lines.push(conversionNote(bot.currency));
    const list = (title: string, items: { item: string; count: number }[]) => {
      lines.push(`${title}:`);
      if (items.length === 0) lines.push('  none in analysed conversations');
      items.forEach((x, i) => lines.push(`  ${i + 1}. ${plainText(x.item)} (${plural(x.count, 'conversation')})`));
    };
    list('Top complaints', bot.topComplaints);
    list('Top missing information', bot.topMissingInformation);
    if (bot.alerts) {
      lines.push('Alerts that fired:');
      if (bot.alerts.length === 0) lines.push('  none');
      for (const a of bot.alerts) lines.push(`  ${a.firedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC ${plainText(a.name)}${a.detail ? `: ${plainText(a.detail)}` : ''}`);
    }
    lines.push(`Details: ${weekLink(input.appUrl, bot.id, content)}`, '');
  }
  lines.push('You receive this digest because it is switched on in your settings:', `${input.appUrl}/app/settings`,
    'Unsubscribe with one click:', input.unsubscribeUrl, '');
  return lines.join('\n');
}

/** Control characters in a name could forge lines of the plain part. */
const plainText = (v: string) => v.replace(/[\u0000-\u001f\u007f]/g, ' ');

// ---- MJML -------------------------------------------------------------------------------

const COLORS: Record<Direction, string> = { up: '#1d7a46', down: '#b42318', same: '#52606d' };
const e = escapeHtml;

function mjmlList(title: string, items: { item: string; count: number }[]): string {
  const body = items.length === 0
    ? '<span style="color:#52606d">None in analysed conversations.</span>'
    : `<ol style="margin:0;padding-left:20px">${items.map((x) => `<li>${e(x.item)} <span style="color:#52606d">(${e(plural(x.count, 'conversation'))})</span></li>`).join('')}</ol>`;
  return `<mj-text padding-top="12px"><strong>${e(title)}</strong><br>${body}</mj-text>`;
}

function mjmlAlerts(bot: ChatbotDigest): string {
  if (!bot.alerts) return '';
  const body = bot.alerts.length === 0
    ? '<span style="color:#52606d">None.</span>'
    : `<ul style="margin:0;padding-left:20px">${bot.alerts.map((a) =>
      `<li>${e(a.name)}<br><span style="font-size:13px;color:#52606d">${e(a.firedAt.toISOString().slice(0, 16).replace('T', ' '))} UTC${a.detail ? ` · ${e(a.detail)}` : ''}</span></li>`).join('')}</ul>`;
  return `<mj-text padding-top="12px"><strong>Alerts that fired</strong><br>${body}</mj-text>`;
}

function mjmlChatbot(bot: ChatbotDigest, appUrl: string, content: DigestContent): string {
  const table = rows(bot).map((r) => `<tr style="border-top:1px solid #e4e7eb">
<td style="padding:8px 4px 8px 0">${e(r.label)}<br><span style="font-size:12px;color:#52606d">before: ${e(r.previous)}</span></td>
<td style="padding:8px 0;text-align:right;white-space:nowrap"><strong style="font-size:17px">${e(r.value)}</strong><br><span style="font-size:12px;color:${COLORS[r.dir]}">${e(r.change)}</span></td></tr>`).join('');
  return `<mj-section background-color="#ffffff" padding="16px 16px 8px" border-top="4px solid #3056d3">
<mj-column>
<mj-text font-size="18px" font-weight="bold" padding-bottom="4px">${e(bot.name)}</mj-text>
${bot.lift ? `<mj-text font-size="16px"><strong>${e(bot.lift.headline)}</strong>${bot.lift.caveats.map((c) => `<br><span style="font-size:13px;color:#52606d">${e(c)}</span>`).join('')}</mj-text>` : ''}
<mj-table font-size="14px" line-height="20px" color="#1f2933" cellpadding="0">${table}</mj-table>
${bot.revenueRule ? `<mj-text font-size="12px" color="#52606d" padding-top="4px">Revenue counted from ${e(bot.revenueRule)}.</mj-text>` : ''}
${conversionNote(bot.currency) ? `<mj-text font-size="12px" color="#52606d" padding-top="0">${e(conversionNote(bot.currency))}</mj-text>` : ''}
${mjmlList('Top complaints', bot.topComplaints)}
${mjmlList('Top missing information', bot.topMissingInformation)}
${mjmlAlerts(bot)}
<mj-button href="${e(weekLink(appUrl, bot.id, content))}" background-color="#3056d3" color="#ffffff" align="left" font-size="14px">Open the dashboard</mj-button>
</mj-column></mj-section>
<mj-section padding="6px"><mj-column></mj-column></mj-section>`;
}

function mjmlOf(input: DigestMailInput): string {
  const { content } = input;
  // Dates never break at their hyphens on a narrow screen.
  const d = (day: string) => `<span style="white-space:nowrap">${e(day)}</span>`;
  const { current, previous } = content.windows;
  const intro = `${d(current.from)} to ${d(current.to)} (UTC), compared with the 7 days before (${d(previous.from)} to ${d(previous.to)}).`;
  const preview = `${period(content)} (UTC), compared with the 7 days before.`;
  return `<mjml lang="en">
<mj-head>
<mj-title>${e(subjectOf(content))}</mj-title>
<mj-preview>${e(preview)}</mj-preview>
<mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" /><mj-text font-size="15px" line-height="22px" color="#1f2933" padding="4px 0" />
<mj-table padding="4px 0" /><mj-button padding="16px 0 8px" /></mj-attributes>
</mj-head>
<mj-body background-color="#f4f5f7" width="600px">
<mj-section padding="20px 16px 12px"><mj-column>
<mj-text font-size="22px" font-weight="bold" padding-bottom="4px">Your Chatlytics week</mj-text>
<mj-text color="#52606d">${intro}</mj-text>
</mj-column></mj-section>
${content.chatbots.length === 0 ? '<mj-section background-color="#ffffff" padding="16px"><mj-column><mj-text>Your account has no chatbot yet.</mj-text></mj-column></mj-section>' : content.chatbots.map((b) => mjmlChatbot(b, input.appUrl, content)).join('\n')}
<mj-section padding="12px 16px 24px"><mj-column>
<mj-text font-size="12px" line-height="18px" color="#52606d">You receive this digest because it is switched on in your <a href="${e(`${input.appUrl}/app/settings`)}" style="color:#3056d3">settings</a>. <a href="${e(input.unsubscribeUrl)}" style="color:#3056d3">Unsubscribe</a> with one click.</mj-text>
</mj-column></mj-section>
</mj-body>
</mjml>`;
}

/** The digest e-mail: subject, HTML (compiled from MJML) and plain text. */
export async function renderDigest(input: DigestMailInput): Promise<RenderedMail> {
  // Loaded lazily, as for the other templates: mjml is large and only sending needs it.
  const { default: mjml2html } = await import('mjml');
  const result = await mjml2html(mjmlOf(input), { validationLevel: 'strict' });
  return { subject: subjectOf(input.content), html: result.html, text: textOf(input) };
}
