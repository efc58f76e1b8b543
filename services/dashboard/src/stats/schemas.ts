import Type, { type TObject, type TOptional } from 'typebox';
import { MAX_TIMEFRAME_DAYS } from '@chatlytics/core';
import { StatsFormat } from './csv.js';

/**
 * Request and response schemas of the statistics endpoints (see the statistics definitions in services/dashboard/README.md). Response property
 * order IS the wire order (Fastify serialises by schema), so every object lists its fields in
 * the documented order, and a field missing here would be dropped from the response.
 */
const ChatbotId = Type.String({ minLength: 1, maxLength: 255, description: 'Chatbot identifier' });

/** A UTC day of a custom range; its calendar and range rules are checked in date-range.ts. */
const RangeDay = (description: string) => Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', maxLength: 10, description }));

// No schema default for timeframe: the service must see whether it was given, to refuse it next to from/to.
export const StatsQuery = Type.Object({
  chatbot_id: ChatbotId,
  timeframe: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TIMEFRAME_DAYS, description: 'Days to look back; default 7. Not together with from/to' })),
  from: RangeDay('First UTC day of a custom range, YYYY-MM-DD (with to; at most 366 days)'),
  to: RangeDay('Last UTC day of a custom range, YYYY-MM-DD, not after today (with from)'),
  compare: Type.Optional(Type.Literal('previous', {
    description: '`previous`: the answer gains `previous`, the same statistic over the period of the same length that ends where this window starts',
  })),
  format: StatsFormat,
});

/** A segment filter's value: exact match on the stored text (packages/events segment.ts bounds it to 255 characters). */
const SegmentValue = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 255, description }));

/** The windowed statistics' query: StatsQuery plus the segment filters (services/dashboard/README.md, "Segments"). */
export const WindowedQuery = Type.Object({
  ...StatsQuery.properties,
  source: SegmentValue('Only visitors whose segment has this source (utm_source, referrer host or `direct`), exact match'),
  utm_campaign: SegmentValue('Only visitors whose segment has this utm_campaign, exact match'),
  device: SegmentValue('Only visitors whose segment has this device (`desktop`, `mobile`, `tablet`), exact match'),
});

export const SourcesQuery = Type.Object({
  ...WindowedQuery.properties,
  by: Type.Optional(Type.Union([Type.Literal('source'), Type.Literal('utm_campaign'), Type.Literal('device')], {
    description: 'The segment attribute to group visitors by; default `source`',
  })),
});

/** `Ab` → `[aA][bB]`: JSON Schema patterns have no case-insensitive flag. */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const POSITIVE = '[0-9]*[1-9][0-9]*';
/**
 * The syntax of the insights timeframe (see the statistics definitions in services/dashboard/README.md), so that a bad one is reported together
 * with every other bad field; parseInsightsTimeframe (timeframe.ts) gives it its meaning.
 */
export const INSIGHTS_TIMEFRAME_PATTERN = `^\\s*(${[
  ...['day', 'week', 'month', ...MONTH_NAMES].map(anyCase),
  POSITIVE,
  '[0-9]{4}-[0-9]{2}-[0-9]{2}\\.\\.[0-9]{4}-[0-9]{2}-[0-9]{2}',
  `${POSITIVE}\\s+(${['minute', 'hour', 'day', 'week', 'month'].map(anyCase).join('|')})[sS]?`,
].join('|')})\\s*$`;

export const InsightsQuery = Type.Object({
  chatbot_id: ChatbotId,
  timeframe: Type.String({
    minLength: 1, maxLength: 50, pattern: INSIGHTS_TIMEFRAME_PATTERN,
    description: 'day | week | month | N minute(s)|hour(s)|day(s)|week(s)|month(s) | a month name | N (days) | YYYY-MM-DD..YYYY-MM-DD (whole UTC days)',
  }),
  format: StatsFormat,
});

/** Field schemas every statistic's answer shares (cart-topics-schemas.ts and the segment schemas use them too). */
export const Count = Type.Integer({ minimum: 0 });
export const Rate = Type.Number({ description: 'Percent, 2 decimals' });
export const Money = Type.Number({ description: 'EUR, 2 decimals' });
export const Window = {
  timeframe_days: Type.Integer(),
  start_date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  end_date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
};

export const OverviewResponse = Type.Object({
  ...Window,
  total_conversations: Count,
  total_ai_messages: Count,
  saved_hours: Type.String({ description: 'Hours with 2 decimals, e.g. "3.75"' }),
});

export const EngagementResponse = Type.Object({
  ...Window,
  total_users: Count,
  total_users_approached: Count,
  total_users_opened: Count,
  total_users_chatted: Count,
  approached_ratio: Rate,
  opened_ratio: Rate,
  chatted_ratio: Rate,
});

export const PopupMetricsResponse = Type.Object({
  ...Window,
  metrics: Type.Array(Type.Object({
    popup_version: Type.String(),
    popup_displayed_count: Count,
    popup_opened_count: Count,
    open_rate: Rate,
    other_versions: Type.Optional(Type.Integer({ minimum: 1, description: 'only on the last row, `(other)`: how many versions beyond the 50 shown it sums' })),
  }), { maxItems: 51, description: 'at most 50 versions (the most displayed, in version order), then one `(other)` row summing the rest' }),
  conversations: Type.Object({
    total: Count,
    from_popup: Count,
    from_chat_button: Count,
    popup_ratio: Rate,
  }),
});

const AbGroup = Type.Object({
  visitors: Count,
  orders: Count,
  conversion_rate: Rate,
  aov: Money,
  arpu: Money,
  conversion_rate_ci95: Type.Object({ lower: Rate, upper: Rate }, { description: 'Wilson score interval (beyond the required fields)' }),
});

export const PurchasesResponse = Type.Object({
  ...Window,
  total_users: Count,
  total_users_chatted: Count,
  total_users_purchased: Count,
  total_users_chatted_purchased: Count,
  total_revenue_purchased: Money,
  total_revenue_chatted_purchased: Money,
  conversion_rate_with_chat: Rate,
  conversion_rate_without_chat: Rate,
  aov_with_chat: Money,
  aov_without_chat: Money,
  ab_test: Type.Optional(Type.Object({
    control: AbGroup,
    test: AbGroup,
    comparison: Type.Object({
      p_value: Type.Number({ description: 'Two-proportion z-test (pooled), two-sided' }),
      sample_ratio_mismatch: Type.Boolean({ description: 'Chi-square against 50/50, p < 0.001' }),
      sample_ratio_p_value: Type.Number(),
    }, { description: 'Beyond the required fields' }),
  }, { description: 'Only when the chatbot has abTestEnabled' })),
});

const Ranked = Type.Array(Type.Object({
  item: Type.String(),
  count: Count,
  conversations: Type.Array(Type.String({ description: '{APP_URL}/app/{chatbot_id}/conversations/{id}' })),
}), { maxItems: 10 });

export const InsightsResponse = Type.Object({
  most_clicked_products: Ranked,
  most_talked_about_products: Ranked,
  most_frequent_intents: Ranked,
  most_common_complaints: Ranked,
  mood_percentages: Type.Object({ happy: Rate, angry: Rate, neutral: Rate }),
  outcome_percentages: Type.Object({ success: Rate, fail: Rate, neutral: Rate }),
  human_intervention_needed_percentage: Rate,
  missing_information_overview: Ranked,
  total_conversations_analyzed: Count,
  total_click_throughs: Count,
  chat_conversion: Type.Object({ ratio: Rate, total_conversions: Count, total_conversations: Count }),
  reactions: Type.Object({ likes: Count, dislikes: Count }),
  average_conversation_duration_minutes: Type.Number(),
});

export const TimeseriesResponse = Type.Object({
  ...Window,
  days: Type.Array(Type.Object({
    date: Type.String({ description: 'YYYY-MM-DD (UTC day)' }),
    visitors: Type.Integer({ minimum: 0, description: 'Distinct tokens with a visitor event that day' }),
    conversations: Type.Integer({ minimum: 0, description: 'convo_started events that day' }),
    purchases: Type.Integer({ minimum: 0, description: 'Counted purchases (as in purchases) by the day of their first copy' }),
    revenue: Type.Number({ description: 'EUR, 2 decimals' }),
  }), { description: 'Every UTC day of the window, oldest first; days without events are zeros' }),
});

const SourceFigures = {
  visitors: Count,
  chatted: Count,
  purchasers: Count,
  revenue: Money,
  conversion_rate_with_chat: Rate,
  conversion_rate_without_chat: Rate,
};

export const SourcesResponse = Type.Object({
  ...Window,
  by: Type.String({ description: '`source`, `utm_campaign` or `device`' }),
  rows: Type.Array(Type.Object({ value: Type.String({ description: "the attribute's value ('' for visits stored before segments existed)" }), ...SourceFigures }), {
    maxItems: 50, description: 'the 50 values with the most visitors (ties: value in byte order), most first',
  }),
  other: Type.Object({ values: Count, ...SourceFigures }, { description: 'the rest summed (`values`: how many values; all 0 when none)' }),
});

/**
 * A windowed statistic's response with `compare=previous`: its own fields, then `previous`, the
 * same body over the previous period (with its own timeframe_days, start_date, end_date).
 */
export const withPrevious = <S extends TObject>(body: S) => Type.Object({
  ...body.properties,
  previous: Type.Optional(body),
}) as unknown as TObject<S['properties'] & { previous: TOptional<S> }>;

export const LiveEventsResponse = Type.Object({
  minutes: Type.Array(Type.Object({
    minute: Type.String({ description: 'Start of the minute, YYYY-MM-DD HH:MMZ' }),
    events: Type.Integer({ minimum: 0 }),
  }), { description: 'Every minute of the last 30, oldest first' }),
});
