import Type from 'typebox';
import type { ExtraTag } from '@chatlytics/postgres';
import type { ChildRow, ChunkRow, DataSourceListRow, DataSourceRow } from './repository.js';
import { formatDateTimeMinutes, formatDateTimeSeconds, timeAgo } from '../html/time.js';
import { Nullable } from '../http/schemas.js';

const common = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  type: Type.String({ description: 'e.g. `file`, `url`, `text`, `crawl`' }),
  subtype: Nullable(Type.String()),
  status: Type.String({ description: 'e.g. `completed`, `processing`, `failed`' }),
  source: Nullable(Type.String()),
  documentCount: Nullable(Type.Integer()),
  productCount: Nullable(Type.Integer()),
  childrenCount: Type.Integer(),
  autoUpdate: Nullable(Type.Boolean()),
  chatbotId: Type.String({ format: 'uuid' }),
  chatbotName: Type.String(),
};

export const DataSourceListItem = Type.Object({
  ...common,
  createdAt: Type.String({ description: 'Y-m-d H:i (UTC)' }),
  updatedAt: Type.String({ description: 'e.g. `3 days ago`' }),
});

export const ExtraTagSchema = Type.Object({ name: Type.String(), value: Type.String() });

export const DataSourceDetail = Type.Object({
  ...common,
  rawPath: Nullable(Type.String()),
  simpleFetch: Nullable(Type.Boolean()),
  extraTags: Nullable(Type.Array(ExtraTagSchema)),
  createdAt: Type.String({ description: 'Y-m-d H:i:s (UTC)' }),
  updatedAt: Type.String({ description: 'Y-m-d H:i:s (UTC)' }),
  settings: Nullable(Type.Record(Type.String(), Type.Unknown())),
});

export const ChunkSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  index: Type.Integer(),
  content: Type.String(),
  tokenCount: Nullable(Type.Integer()),
  hasEmbedding: Type.Boolean(),
});

export const ChildSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  source: Nullable(Type.String()),
  status: Type.String(),
  documentCount: Nullable(Type.Integer()),
  createdAt: Type.String({ description: 'Y-m-d H:i (UTC)' }),
});

export const ExtraTagConfig = Type.Record(Type.String({ format: 'uuid' }), Type.Object({
  name: Type.String({ description: 'Defaults to `static_category`' }),
  values: Type.Array(Type.String()),
}));

function presentCommon(row: DataSourceListRow) {
  return {
    id: row.id, name: row.name, type: row.type, subtype: row.subtype, status: row.status, source: row.source,
    documentCount: row.documentCount, productCount: row.productCount, childrenCount: row.childrenCount,
    autoUpdate: row.autoUpdate, chatbotId: row.chatbotId, chatbotName: row.chatbotName,
  };
}

/** Spelled out rather than spread from presentCommon: it runs for thousands of rows per request. */
export function presentDataSourceListItem(row: DataSourceListRow, now: Date) {
  return {
    id: row.id, name: row.name, type: row.type, subtype: row.subtype, status: row.status, source: row.source,
    documentCount: row.documentCount, productCount: row.productCount, childrenCount: row.childrenCount,
    autoUpdate: row.autoUpdate, chatbotId: row.chatbotId, chatbotName: row.chatbotName,
    createdAt: formatDateTimeMinutes(row.createdAt), updatedAt: timeAgo(row.updatedAt, now),
  };
}

/** Only well-formed `{name, value}` string pairs: the column is free JSON written by importers. */
const cleanTags = (tags: unknown): ExtraTag[] | null =>
  Array.isArray(tags)
    ? tags.filter((t): t is ExtraTag => typeof t?.name === 'string' && typeof t?.value === 'string').map(({ name, value }) => ({ name, value }))
    : null;

export function presentDataSourceDetail(row: DataSourceRow) {
  return {
    ...presentCommon(row),
    rawPath: row.rawPath,
    simpleFetch: row.simpleFetch,
    extraTags: cleanTags(row.extraTags),
    createdAt: formatDateTimeSeconds(row.createdAt),
    updatedAt: formatDateTimeSeconds(row.updatedAt),
    settings: row.settings && typeof row.settings === 'object' && !Array.isArray(row.settings) ? row.settings : null,
  };
}

export const presentChunk = (c: ChunkRow) => ({ id: c.id, index: c.index, content: c.content, tokenCount: c.tokenCount, hasEmbedding: c.hasEmbedding });

export const presentChild = (c: ChildRow) => ({
  id: c.id, name: c.name, source: c.source, status: c.status, documentCount: c.documentCount, createdAt: formatDateTimeMinutes(c.createdAt),
});

export const DEFAULT_EXTRA_TAG_NAME = 'static_category';

/**
 * Per the endpoint details in services/dashboard/docs/api.md: an entry for every chatbot of the account, even one without tags; values are
 * distinct and sorted by code unit (byte order for ASCII), so the order does not depend on a locale.
 */
export function buildExtraTagConfig(
  chatbots: { id: string; settings: { extraTagName?: string | null } | null }[],
  tagRows: { chatbotId: string; extraTags: unknown }[],
): Record<string, { name: string; values: string[] }> {
  const values = new Map<string, Set<string>>(chatbots.map((c) => [c.id, new Set()]));
  for (const row of tagRows) {
    const set = values.get(row.chatbotId);
    if (!set) continue;
    for (const tag of cleanTags(row.extraTags) ?? []) set.add(tag.value);
  }
  const config: Record<string, { name: string; values: string[] }> = {};
  for (const c of chatbots) {
    const name = typeof c.settings?.extraTagName === 'string' && c.settings.extraTagName !== '' ? c.settings.extraTagName : DEFAULT_EXTRA_TAG_NAME;
    config[c.id] = { name, values: [...values.get(c.id)!].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
  }
  return config;
}
