import { ERASED_TOKENS_REFRESH_MS, loadErasedTokens, type ClickHouseEngine, type ErasedTokenList } from '@chatlytics/clickhouse';
import { drop, DropReason, ok, type Incoming, type Step } from './step.js';

export const ERASED_STEP = 'erased';

export const NO_ERASED_TOKENS: ErasedTokenList = { empty: true, mayHold: () => false, has: () => false };

/**
 * First step: a message of an erased visitor (README.md, "Personal data") is dropped, whether
 * it was in flight during the erasure or is read again by a replay. Free while nothing is
 * listed; else one FNV hash of the message key (the token) per message, and the JSON read only
 * for the few whose hash is listed.
 */
export function createErasedStep(list: () => ErasedTokenList): Step<Incoming, Incoming> {
  return {
    name: ERASED_STEP,
    run(input) {
      const erased = list();
      if (erased.empty) return ok(input);
      const key = input.message.key;
      if (key?.startsWith(ORDER_KEY)) return withoutErasedToken(input, erased);
      if (key !== null && !erased.mayHold(key)) return ok(input);
      let value: { chatbot_id?: unknown; token?: unknown };
      try {
        value = JSON.parse(input.message.value.toString('utf8'));
      } catch {
        return ok(input); // not an event: the later steps dead-letter it
      }
      const { chatbot_id: chatbotId, token } = value ?? {};
      if (typeof token === 'string' && erased.has(typeof chatbotId === 'string' ? chatbotId : '', token)) return drop(DropReason.Erased);
      return ok(input);
    },
  };
}

/** Orders travel keyed by chatbot and order (packages/events order.ts), not by token. */
const ORDER_KEY = 'order:';

/**
 * An order of an erased visitor is the shop's record and stays, without the token: the message
 * goes on with `token: ''`, as the erasure left its stored rows (privacy/erase_token.sql).
 */
function withoutErasedToken(input: Incoming, erased: ErasedTokenList) {
  let value: { kind?: unknown; order?: { chatbot_id?: unknown; token?: unknown } };
  try {
    value = JSON.parse(input.message.value.toString('utf8'));
  } catch {
    return ok(input);
  }
  const order = value?.kind === 'order' ? value.order : undefined;
  const token = order?.token;
  if (typeof token !== 'string' || token === '' || !erased.mayHold(token)) return ok(input);
  if (!erased.has(typeof order?.chatbot_id === 'string' ? order.chatbot_id : '', token)) return ok(input);
  const value2 = Buffer.from(JSON.stringify({ ...value, order: { ...order, token: '' } }));
  return ok({ ...input, message: { ...input.message, value: value2 } });
}

/** The list as last read, read again every ERASED_TOKENS_REFRESH_MS until stopped. */
export function createErasedTokensFeed(clickhouse: ClickHouseEngine, onError: (err: unknown) => void, refreshMs = ERASED_TOKENS_REFRESH_MS) {
  let current = NO_ERASED_TOKENS;
  let timer: NodeJS.Timeout | undefined;
  const load = async () => { current = await loadErasedTokens(clickhouse); };
  return {
    list: () => current,
    load,
    start() {
      timer ??= setInterval(() => { load().catch(onError); }, refreshMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
