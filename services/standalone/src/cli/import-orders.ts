import { eq } from 'drizzle-orm';
import { chatbots } from '@chatlytics/postgres';
import { checkOrderBody, encodeOrderMessage, isOrderProblem, parseJsonSafely, toStoredOrder, type StoredOrder } from '@chatlytics/events';
import { UsageError } from './args.js';
import { openBusSink } from './bus-sink.js';
import type { CommandContext } from './context.js';
import { withEngines } from './data-commands.js';

/** Orders per bus publish: a few hundred KB, like one tracking batch. */
const CHUNK = 500;
/** A file with more bad lines is refused with the first ones named. */
const REPORTED_ERRORS = 20;

/**
 * `import-orders <file.jsonl> --chatbot ID` (services/ingest/README.md, "Orders"): the shop's
 * past orders, one POST /api/orders body per line, so attribution has history from day one.
 * Every line is checked before anything is published: one bad line refuses the whole file,
 * naming the lines. The orders then travel the bus to the consumer like the endpoint's, with
 * source `import`; importing the same file again stores nothing new (the same states).
 */
export async function importOrders(ctx: CommandContext, input: { file: string; chatbot: string; lines: string[] }) {
  const receivedAt = new Date();
  const orders: StoredOrder[] = [];
  const errors: string[] = [];
  input.lines.forEach((text, i) => {
    if (text.trim() === '' || errors.length >= REPORTED_ERRORS) return;
    let body: unknown;
    try {
      body = parseJsonSafely(text);
    } catch (err) {
      errors.push(`line ${i + 1}: ${(err as Error).message}`);
      return;
    }
    const checked = checkOrderBody(body);
    if (!checked.ok) {
      errors.push(`line ${i + 1}: ${Object.entries(checked.errors).map(([k, v]) => `${k}: ${v[0]}`).join('; ')}`);
      return;
    }
    const stored = toStoredOrder(input.chatbot, checked.value, 'import', receivedAt);
    if (isOrderProblem(stored)) errors.push(`line ${i + 1}: ${stored.field}: ${stored.message}`);
    else orders.push(stored);
  });
  if (errors.length > 0) throw new UsageError(`${input.file}: nothing imported\n${errors.join('\n')}`);
  return withEngines(ctx, { bus: true }, async (engines) => {
    const [bot] = await engines.postgres.db.select({ id: chatbots.id }).from(chatbots).where(eq(chatbots.id, input.chatbot)).limit(1);
    if (!bot) throw new UsageError(`--chatbot ${input.chatbot}: no such chatbot`);
    const sink = await openBusSink({ config: ctx.config, bus: engines.bus, clickhouse: engines.clickhouse, log: ctx.log, consumerRunning: ctx.stores !== undefined });
    try {
      for (let i = 0; i < orders.length; i += CHUNK) await sink.publishMessages(orders.slice(i, i + CHUNK).map(encodeOrderMessage));
      await sink.stored();
    } finally {
      await sink.close();
    }
    return { chatbot: input.chatbot, orders: orders.length, distinctOrders: new Set(orders.map((o) => o.order_id)).size };
  });
}
