import {
  eraseTokenRows, erasedTokenDigest, markTokenErased, sqlFile, type ClickHouseEngine, type TokenErasure,
} from '@chatlytics/clickhouse';

/**
 * One visitor's rows in ClickHouse (clickhouse/queries/privacy/). ClickHouse knows no accounts:
 * callers pass a chatbot the account owns.
 */
export function createVisitorStore(clickhouse: ClickHouseEngine, opts: { cluster?: string } = {}) {
  return {
    digest: erasedTokenDigest,
    /** From the consumers' next read of erased_tokens on, the token's messages are dropped. */
    markErased: (chatbotId: string, token: string) => markTokenErased(clickhouse, chatbotId, token),
    async tokenOf(chatbotId: string, digest: string): Promise<string | null> {
      const [row] = await clickhouse.query<{ token: string }>(sqlFile('privacy/token_by_digest'), { chatbot_id: chatbotId, digest });
      return row?.token ?? null;
    },
    erase: (chatbotId: string, token: string, erasureId: string): Promise<TokenErasure> =>
      eraseTokenRows(clickhouse, { chatbotId, token, erasureId }, { cluster: opts.cluster }),
    events: (chatbotId: string, token: string) => clickhouse.query<Record<string, unknown>>(sqlFile('privacy/visitor_events'), { chatbot_id: chatbotId, token }),
    rejected: (chatbotId: string, token: string) => clickhouse.query<Record<string, unknown>>(sqlFile('privacy/visitor_rejected'), { chatbot_id: chatbotId, token }),
    orders: (chatbotId: string, token: string) => clickhouse.query<Record<string, unknown>>(sqlFile('privacy/visitor_orders'), { chatbot_id: chatbotId, token }),
  };
}

export type VisitorStore = ReturnType<typeof createVisitorStore>;
