import Type from 'typebox';
import type { ChatbotRow } from '../repositories/chatbot-repository.js';
import { formatDate, timeAgo } from '../format/time.js';
import { Nullable } from '../schemas/common.js';

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
});

export const ChatbotDetail = Type.Object({
  ...ChatbotListItem.properties,
  companyName: Nullable(Type.String()),
  supportEmail: Nullable(Type.String()),
});

export function presentChatbot(row: ChatbotRow, now: Date) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    conversations: row.conversations,
    // Per the endpoint details in services/dashboard/README.md: visitor and conversion tracking are not part of this endpoint.
    visitors: 0,
    conversionRate: 0,
    language: row.language,
    // A chatbot not integrated yet has no date; `date` columns arrive as 'YYYY-MM-DD' already.
    integratedAt: row.integratedAt ? formatDate(new Date(`${row.integratedAt}T00:00:00Z`)) : null,
    lastActive: timeAgo(row.updatedAt, now),
  };
}

const text = (v: unknown) => (typeof v === 'string' ? v : null);

export function presentChatbotDetail(row: ChatbotRow, now: Date) {
  return {
    ...presentChatbot(row, now),
    companyName: text(row.settings?.companyName),
    supportEmail: text(row.settings?.supportEmail),
  };
}
