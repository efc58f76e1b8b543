import Type, { type TObject, type TOptional } from 'typebox';
import { MAX_TIMEFRAME_DAYS } from '@chatlytics/core';
import { StatsFormat } from './csv.js';

/**
 * Request and response schemas of the statistics endpoints (see the statistics definitions in services/dashboard/docs/statistics.md). Response property
 * order IS the wire order (Fastify serialises by schema), so every object lists its fields in
 * the documented order, and a field missing here would be dropped from the response.
 */
export const ChatbotId = Type.String({ minLength: 1, maxLength: 255, description: 'Chatbot identifier' });

/** A UTC day of a custom range; its calendar and range rules are checked in window.ts. */
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

/** The windowed statistics' query: StatsQuery plus the segment filters (services/dashboard/docs/statistics.md, "Segments"). */
export const WindowedQuery = Type.Object({
  ...StatsQuery.properties,
  source: SegmentValue('Only visitors whose segment has this source (utm_source, referrer host or `direct`), exact match'),
  utm_campaign: SegmentValue('Only visitors whose segment has this utm_campaign, exact match'),
  device: SegmentValue('Only visitors whose segment has this device (`desktop`, `mobile`, `tablet`), exact match'),
});

/** Field schemas every statistic's answer shares. */
export const Count = Type.Integer({ minimum: 0 });
export const Rate = Type.Number({ description: 'Percent, 2 decimals' });
export const Money = Type.Number({ description: 'EUR, 2 decimals' });
export const Window = {
  timeframe_days: Type.Integer(),
  start_date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  end_date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
};

/**
 * A windowed statistic's response with `compare=previous`: its own fields, then `previous`, the
 * same body over the previous period (with its own timeframe_days, start_date, end_date).
 */
export const withPrevious = <S extends TObject>(body: S) => Type.Object({
  ...body.properties,
  previous: Type.Optional(body),
}) as unknown as TObject<S['properties'] & { previous: TOptional<S> }>;
