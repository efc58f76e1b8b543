import Type from 'typebox';
import { Count, Money, Rate, StatsQuery, Window } from './schemas.js';
import { TOPIC_ITEMS_LIMIT, TOPIC_LINKS_LIMIT } from './topics-report.js';

/** Schemas of the cart and revenue-by-topic statistics (services/dashboard/README.md, "cart", "topics"); property order is wire order. */
const CartFigures = {
  users_added_to_cart: Type.Integer({ minimum: 0, description: '|A|: tokens of V with an added_to_cart in W' }),
  users_went_to_cart: Type.Integer({ minimum: 0, description: '|G|: with a go_to_cart in W' }),
  users_purchased: Type.Integer({ minimum: 0, description: '|B|: with a counted purchase in W' }),
  users_added_and_purchased: Type.Integer({ minimum: 0, description: '|A ∩ B|' }),
  cart_conversion_rate: Type.Number({ description: '|A ∩ B| / |A| × 100, 2 decimals' }),
  users_abandoned: Type.Integer({ minimum: 0, description: '|A − B|' }),
  abandoned_value: Type.Number({ description: 'EUR of the added_to_cart items of A − B in W, 2 decimals' }),
};

/** Spelled out, not mapped from TOPIC_DIMENSIONS: a mapped array would lose the literal types. */
const Dimension = (description?: string) => Type.Union([
  Type.Literal('intent'), Type.Literal('product'), Type.Literal('clicked_product'), Type.Literal('complaint'), Type.Literal('missing_information'),
], description ? { description } : {});

const CartHalf = (description: string) => Type.Object({ users: Count, ...CartFigures }, { description });

export const CartResponse = Type.Object({
  ...Window,
  total_users: Type.Integer({ minimum: 0, description: '|V|' }),
  ...CartFigures,
  chatted: CartHalf('The same figures over the tokens of V with a convo_started in W; `users` = their number'),
  not_chatted: CartHalf('The same figures over the other tokens of V'),
});

export const TopicsQuery = Type.Object({
  ...StatsQuery.properties,
  dimension: Dimension('The analysis list: intent (intents), product (talkedAboutProducts), clicked_product (clickedProducts), complaint (complaints), missing_information (missingInformation)'),
});

export const TopicsResponse = Type.Object({
  ...Window,
  dimension: Dimension(),
  items: Type.Array(Type.Object({
    item: Type.String({ description: 'Trimmed, in its earliest spelling' }),
    conversations: Type.Integer({ minimum: 0, description: 'Conversations of C naming it' }),
    visitors: Type.Integer({ minimum: 0, description: 'Their distinct visitor tokens' }),
    purchasers: Type.Integer({ minimum: 0, description: 'Of those, tokens with a counted purchase in W after the start of one of their conversations naming it' }),
    revenue: Money,
    orders: Count,
    conversion_rate: Rate,
    abandoned_carts: Type.Integer({ minimum: 0, description: 'Beyond the required fields: its visitors in A − B of "cart"' }),
    abandoned_value: Type.Number({ description: 'Beyond the required fields: EUR of their abandoned carts, 2 decimals' }),
    links: Type.Array(Type.String({ description: '{APP_URL}/app/{chatbot_id}/conversations/{id}' }), { maxItems: TOPIC_LINKS_LIMIT, description: 'Oldest first' }),
  }), { maxItems: TOPIC_ITEMS_LIMIT, description: 'By revenue descending, then conversations descending, then item (byte order)' }),
  totals: Type.Object({
    conversations: Type.Integer({ minimum: 0, description: '|C|' }),
    visitors: Count,
    purchasers: Count,
    revenue: Money,
    orders: Count,
    conversion_rate: Rate,
    abandoned_carts: Type.Integer({ minimum: 0, description: 'Beyond the required fields: visitors of the conversations naming any item, in A − B of "cart"' }),
    abandoned_value: Money,
  }, { description: 'Over C, each purchase once' }),
});
