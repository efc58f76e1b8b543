import Type from 'typebox';
import type { ChatbotRow } from '../repositories/chatbot-repository.js';
import { formatDate, timeAgo } from '../html/time.js';
import { Nullable } from '../http/schemas.js';
import { presentRevenueSettings, RevenueSettingsDetail } from './revenue-settings.js';

export const ChatbotListItem = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  status: Type.String({ description: '`active` or `paused`' }),
  conversations: Type.Integer(),
  visitors: Type.Integer({ description: 'Always 0' }),
  conversionRate: Type.Integer({ description: 'Always 0' }),
  language: Type.String(),
  integratedAt: Nullable(Type.String({ description: 'Y-m-d' })),
  lastActive: Type.String({ description: 'e.g. `2 hours ago`' }),
  displayCurrency: Type.String({ description: 'The currency the app pages and the weekly digest show money in, converted from EUR at fixed rates (default `EUR`); the API answers in EUR' }),
});

export const ChatbotDetail = Type.Object({
  ...ChatbotListItem.properties,
  companyName: Nullable(Type.String()),
  supportEmail: Nullable(Type.String()),
  allowedOrigins: Type.Array(Type.String(), { description: "The shop's browser origins; a browser event from any other is refused (403 ANALYTICS_003). Empty: any origin" }),
  maxPurchaseEur: Type.Number({ description: 'A purchase worth more EUR than this is set aside, not counted as revenue' }),
  requireSignedPurchases: Type.Boolean({ description: 'Only purchases signed by the shop\'s backend count (services/ingest/README.md, "Verified purchases")' }),
  holdoutPercent: Type.Integer({ minimum: 0, maximum: 50, description: 'The share of visitors (%) for whom the assistant stays hidden, to measure the revenue it adds (`GET /api/dashboard/analytics/stats/lift`). 0: no holdout' }),
  hasSigningSecret: Type.Boolean({ description: 'Whether a purchase signing secret exists; the secret itself is only shown when generated' }),
  ...RevenueSettingsDetail,
  retentionDays: Type.Integer({ description: "Days a visitor's events and conversations are kept (README.md, \"Personal data\")" }),
});

export function presentChatbot(row: ChatbotRow, now: Date) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    conversations: row.conversations,
    // Per the endpoint details in services/dashboard/docs/api.md: visitor and conversion tracking are not part of this endpoint.
    visitors: 0,
    conversionRate: 0,
    language: row.language,
    // A chatbot not integrated yet has no date; `date` columns arrive as 'YYYY-MM-DD' already.
    integratedAt: row.integratedAt ? formatDate(new Date(`${row.integratedAt}T00:00:00Z`)) : null,
    lastActive: timeAgo(row.updatedAt, now),
    displayCurrency: row.displayCurrency,
  };
}

const text = (v: unknown) => (typeof v === 'string' ? v : null);

export function presentChatbotDetail(row: ChatbotRow, now: Date) {
  return {
    ...presentChatbot(row, now),
    companyName: text(row.settings?.companyName),
    supportEmail: text(row.settings?.supportEmail),
    allowedOrigins: row.allowedOrigins,
    maxPurchaseEur: row.maxPurchaseEur,
    requireSignedPurchases: row.requireSignedPurchases,
    holdoutPercent: row.holdoutPercent,
    hasSigningSecret: row.hasSigningSecret,
    ...presentRevenueSettings(row),
    retentionDays: row.retentionDays,
  };
}

export const SigningSecret = Type.String({
  description: 'The purchase signing secret (HMAC-SHA256 key). Shown this once: store it in the shop\'s backend; only a new one can be generated later',
});

export const CreatedChatbot = Type.Object({
  ...ChatbotDetail.properties,
  abTestEnabled: Type.Boolean(),
});

export const Embed = Type.Object({
  trackerUrl: Type.String({ description: '{INGEST_PUBLIC_URL or APP_URL}/tracker.js' }),
  snippet: Type.String({ description: 'The two tags to put on every shop page (packages/tracker/README.md): the inline queue stub, which keeps `chatlytics.track` and `consent` calls made before the script loaded, then the script tag' }),
});

// Ids are UUIDs and the base a validated URL, but the tag is HTML: quote-safe whatever they hold.
const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The inline queue stub of packages/tracker/README.md ("Embedding"), which the script replays. */
export const TRACKER_STUB = `<script>
  window.chatlytics = window.chatlytics || { q: [],
    track: function () { this.q.push(['track', arguments]) },
    consent: function () { this.q.push(['consent', arguments]) } };
</script>`;

/**
 * The tracker's two tags for a chatbot: the queue stub, then the script tag. An A/B chatbot's
 * script tag carries data-ab-test="true": without it the tracker assigns no group and the A/B
 * statistics stay empty.
 */
export function embedFor(ingestPublicUrl: string, chatbotId: string, abTestEnabled: boolean) {
  const trackerUrl = `${ingestPublicUrl}/tracker.js`;
  const ab = abTestEnabled ? ' data-ab-test="true"' : '';
  return { trackerUrl, snippet: `${TRACKER_STUB}\n<script async src="${attr(trackerUrl)}" data-chatbot-id="${attr(chatbotId)}"${ab}></script>` };
}
