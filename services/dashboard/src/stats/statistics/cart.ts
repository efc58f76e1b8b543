import Type from 'typebox';
import { percent, round2, toInt } from '../numbers.js';
import { EUR_PARAMS, readRows } from '../params.js';
import { Count, StatsQuery, Window } from '../schemas.js';
import { defineStatistic } from '../statistic.js';

/** The figures of a set of visitors (docs/statistics.md, "cart"); property order is wire order. */
const CartFigures = {
  users_added_to_cart: Type.Integer({ minimum: 0, description: '|A|: tokens of V with an added_to_cart in W' }),
  users_went_to_cart: Type.Integer({ minimum: 0, description: '|G|: with a go_to_cart in W' }),
  users_purchased: Type.Integer({ minimum: 0, description: '|B|: with a counted purchase in W' }),
  users_added_and_purchased: Type.Integer({ minimum: 0, description: '|A ∩ B|' }),
  cart_conversion_rate: Type.Number({ description: '|A ∩ B| / |A| × 100, 2 decimals' }),
  users_abandoned: Type.Integer({ minimum: 0, description: '|A − B|' }),
  abandoned_value: Type.Number({ description: 'EUR of the added_to_cart items of A − B in W, 2 decimals' }),
};

const CartHalf = (description: string) => Type.Object({ users: Count, ...CartFigures }, { description });

export const CartResponse = Type.Object({
  ...Window,
  total_users: Type.Integer({ minimum: 0, description: '|V|' }),
  ...CartFigures,
  chatted: CartHalf('The same figures over the tokens of V with a convo_started in W; `users` = their number'),
  not_chatted: CartHalf('The same figures over the other tokens of V'),
});

const QUERY = 'stats/cart';

/** One half of V (chatted or not) as stats/cart.sql sums it; abandoned_value unrounded (EUR). */
export interface CartHalfCounts {
  users: number;
  users_added_to_cart: number;
  users_went_to_cart: number;
  users_purchased: number;
  users_added_and_purchased: number;
  users_abandoned: number;
  abandoned_value: number;
}

const CART_FIELDS = ['users', 'users_added_to_cart', 'users_went_to_cart', 'users_purchased', 'users_added_and_purchased', 'users_abandoned', 'abandoned_value'] as const;
export const EMPTY_CART_HALF: CartHalfCounts = Object.fromEntries(CART_FIELDS.map((k) => [k, 0])) as unknown as CartHalfCounts;

/** The cart statistic's seven figures of a set of visitors (docs/statistics.md, "cart"). */
function cartFigures({ users_added_to_cart, users_went_to_cart, users_purchased, users_added_and_purchased, users_abandoned, abandoned_value }: CartHalfCounts) {
  return {
    users_added_to_cart, users_went_to_cart, users_purchased, users_added_and_purchased,
    cart_conversion_rate: percent(users_added_and_purchased, users_added_to_cart),
    users_abandoned,
    abandoned_value: round2(abandoned_value),
  };
}

/**
 * The cart funnel and abandoned carts over V, in total and per half: who chatted in W, and the
 * rest. ClickHouse answers the two halves; the whole is their sum (every token of V is in exactly one).
 */
export const cart = defineStatistic()({
  name: 'cart',
  summary: 'Cart funnel: added to cart, went to cart, bought; abandoned carts and their value; chatted or not',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: StatsQuery,
  response: CartResponse,
  async read({ clickhouse }, ctx): Promise<{ chatted: CartHalfCounts; notChatted: CartHalfCounts }> {
    const rows = await readRows(clickhouse, QUERY, ctx, EUR_PARAMS);
    const half = (chatted: boolean): CartHalfCounts => {
      const row = rows.find((r) => (toInt(r.chatted) === 1) === chatted);
      return row ? Object.fromEntries(CART_FIELDS.map((k) => [k, toInt(row[k])])) as unknown as CartHalfCounts : { ...EMPTY_CART_HALF };
    };
    return { chatted: half(true), notChatted: half(false) };
  },
  present({ chatted, notChatted }) {
    const sum = Object.fromEntries(CART_FIELDS.map((k) => [k, chatted[k] + notChatted[k]])) as unknown as CartHalfCounts;
    return {
      total_users: sum.users,
      ...cartFigures(sum),
      chatted: { users: chatted.users, ...cartFigures(chatted) },
      not_chatted: { users: notChatted.users, ...cartFigures(notChatted) },
    };
  },
});
