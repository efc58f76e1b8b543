import { encodeOrderMessage, type StoredOrder } from '@chatlytics/events';
import type { FastifyBaseLogger } from 'fastify';
import type { EventPublisher } from '../publisher.js';
import { OrdersError } from './errors.js';

/** An order state onto the bus; resolves once it is durable (acks=all, or fsync'd), else 503. */
export async function publishOrder(publisher: Pick<EventPublisher, 'publish'>, order: StoredOrder, log: FastifyBaseLogger): Promise<void> {
  try {
    await publisher.publish(encodeOrderMessage(order));
  } catch (err) {
    log.warn({ err, chatbotId: order.chatbot_id, orderId: order.order_id }, 'order not durable: answering 503');
    throw new OrdersError('ORDERS_004', { cause: err });
  }
}
