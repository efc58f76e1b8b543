import { v5 as uuidv5 } from 'uuid';
import { DAY_MS as DAY, HOUR_MS } from '@chatlytics/core';

/** Fixed namespace: the demo's ids are the same on every run, so `demo` twice changes nothing. */
const NS = '6f1d7f0e-3a52-4c1b-9a57-3f0e1a9c2b10';
const id = (name: string) => uuidv5(name, NS);
/**
 * A visitor's journey lasts under 15 minutes, so starting it at most 22 h into its day keeps
 * every event inside that day, hence before today, hence never in the future.
 */
const LATEST_START = 22 * HOUR_MS;

/** mulberry32: small, fast, seeded; the demo is reproducible. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a: turns "<bot>:<date>" into a PRNG seed. */
function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const PRODUCTS = [
  ['Trail Runner 2', 'shoes', 129], ['City Sneaker', 'shoes', 89], ['Rain Jacket', 'jackets', 159],
  ['Down Vest', 'jackets', 119], ['Wool Socks', 'accessories', 15], ['Canvas Backpack', 'accessories', 69],
] as const;
const INTENTS = ['product question', 'sizing help', 'shipping', 'returns', 'discount code'];
const COMPLAINTS = ['slow delivery', 'wrong size', 'price too high'];
const MISSING = ['international shipping costs', 'care instructions', 'stock in stores'];
const USER_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
];

/**
 * Where the demo's visits come from (the traffic source, services/ingest/README.md): a search
 * engine, social media, campaigns tagged with utm_* parameters, and typed-in addresses. Picked by
 * the visit's number, not the PRNG, so the rest of each day's traffic stays as it was.
 */
const ORIGINS = [
  { referrer: 'https://www.google.com/', query: '' },
  { referrer: '', query: '' },
  { referrer: 'https://www.instagram.com/', query: '' },
  { referrer: '', query: '?utm_source=newsletter&utm_medium=email&utm_campaign=winter-sale' },
  { referrer: 'https://www.google.com/', query: '?utm_source=google&utm_medium=cpc&utm_campaign=brand' },
  { referrer: 'https://www.bing.com/', query: '' },
  { referrer: 'https://www.google.com/', query: '' },
] as const;

/** Prices are quoted in each shop's currency: `factor` turns the EUR list price into it. */
const BOTS = [
  { key: 'outdoor', name: 'Outdoor Store Assistant', ab: true, currency: 'EUR', factor: 1, language: 'en' },
  { key: 'sneakers', name: 'Sneaker Shop Helper', ab: false, currency: 'USD', factor: 1.1, language: 'en' },
  { key: 'nordic', name: 'Nordic Wear Guide', ab: false, currency: 'SEK', factor: 11, language: 'sv' },
] as const;
type Bot = (typeof BOTS)[number];

export interface DemoOptions { now: Date; days?: number; visitorsPerDay?: number }

/**
 * The `demo` account (see the CLI rules in services/standalone/README.md): three chatbots (one with an A/B test, one paused), data
 * sources with chunks, raw content and children, conversations with analyses, and `days` days
 * of tracking events. Each calendar day's traffic is generated from a seed of (chatbot, date),
 * so running `demo` again — the same day or later — reproduces the overlapping days exactly
 * (same ids, same times) and the import stores every event once.
 */
export function buildDemoFixture(opts: DemoOptions) {
  const days = opts.days ?? 30;
  const perDay = opts.visitorsPerDay ?? 120;
  const anchor = Date.UTC(opts.now.getUTCFullYear(), opts.now.getUTCMonth(), opts.now.getUTCDate());
  const iso = (ms: number) => new Date(ms).toISOString();
  const events: Record<string, unknown>[] = [];

  const chatbots = BOTS.map((bot, b) => {
    const chatbotId = id(`chatbot:${bot.key}`);
    const conversations: Record<string, unknown>[] = [];
    for (let day = days; day >= 1; day--) {
      const dayStart = anchor - day * DAY;
      const date = iso(dayStart).slice(0, 10);
      const rand = prng(seedOf(`${bot.key}:${date}`));
      let seq = 0;
      const weekend = [0, 6].includes(new Date(dayStart).getUTCDay());
      // Shops see more traffic at weekends, and no two days alike.
      const visitors = Math.round(perDay * (weekend ? 1.3 : 1) * (0.85 + rand() * 0.3));
      for (let v = 0; v < visitors; v++) {
        const visit = simulateVisit(rand, bot);
        // The last character decides the A/B group (see the stored-event rules in services/ingest/README.md): a digit, so 1 in 5 per group.
        const token = `demo-${bot.key}-${date.replaceAll('-', '')}-${v}${Math.floor(rand() * 10)}`;
        const userAgent = USER_AGENTS[Math.floor(rand() * USER_AGENTS.length)];
        const start = dayStart + Math.floor(rand() * LATEST_START);
        const origin = ORIGINS[(v + day) % ORIGINS.length];
        for (const e of visit.events) {
          // The page view carries where the visit came from, as the tracker sends it.
          const landing = e.event === 'visitor' ? { url: `https://${bot.key}.example.com${e.path ?? '/'}${origin.query}`, referrer: origin.referrer } : {};
          events.push({
            event: e.event, token, ab_test: bot.ab, receivedAt: iso(start + e.at),
            data: {
              chatbot_id: chatbotId, event_id: id(`event:${bot.key}:${date}:${seq++}`),
              url: `https://${bot.key}.example.com${e.path ?? '/'}`, user_agent: userAgent, ...landing, ...e.data,
            },
          });
        }
        if (visit.conversation && rand() < 0.25) {
          // The visit's token goes with the chat, as a chat backend would store it: the conversation page lists the visit's events.
          conversations.push({ ...demoConversation(id(`conversation:${bot.key}:${date}:${v}`), start, visit.conversation, rand), visitorToken: token });
        }
      }
    }
    return {
      id: chatbotId, name: bot.name, status: b === 2 ? 'paused' : 'active', language: bot.language,
      integratedAt: iso(anchor - (days + 30) * DAY).slice(0, 10),
      createdAt: iso(anchor - (days + 30) * DAY), updatedAt: iso(anchor - (b + 1) * HOUR_MS),
      settings: { companyName: `${bot.name.split(' ')[0]} GmbH`, supportEmail: `support@${bot.key}.example.com`, abTestEnabled: bot.ab, extraTagName: 'static_category' },
      dataSources: demoDataSources(bot, anchor, iso),
      conversations,
    };
  });

  return {
    accounts: [{
      id: id('account:demo'), name: 'Demo Shops', cmsProviders: ['shopify'],
      users: [{ email: 'demo@example.com', password: 'demo-password', name: 'Demo User' }],
      chatbots,
    }],
    events,
  };
}

interface VisitEvent { event: string; at: number; path?: string; data?: Record<string, unknown> }
interface ChatOutline { messageTimes: number[]; product: string; clicked: boolean; converted: boolean }

/** One visitor's journey through the funnel, times in ms from the visit's start. */
function simulateVisit(rand: () => number, bot: Bot): { events: VisitEvent[]; conversation?: ChatOutline } {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const [product, , listPrice] = pick(PRODUCTS);
  const path = `/products/${product.toLowerCase().replaceAll(' ', '-')}`;
  const out: VisitEvent[] = [{ event: 'visitor', at: 0, path }];
  let t = 0;
  const add = (event: string, step: number, data?: Record<string, unknown>, at = path) => out.push({ event, at: (t += step), path: at, data });

  // Popup versions under test; an empty version is an old widget build ("unknown" in the stats).
  const version = pick(['v1', 'v2', 'v2', '']);
  const popupData = version ? { popup_version: version } : {};
  const approached = rand() < 0.55;
  if (approached) add('popup_displayed', 4000, popupData);
  const openedPopup = approached && rand() < 0.3;
  if (openedPopup) add('popup_opened', 3000, popupData);
  const opened = openedPopup || rand() < 0.12;
  if (opened) add('bot_open', 1000);
  const chatted = opened && rand() < 0.7;
  let conversation: ChatOutline | undefined;
  if (chatted) {
    add('convo_started', 2000, { open_way: openedPopup ? 'popup' : 'chat_button' });
    const messageTimes: number[] = [];
    for (let m = 1 + Math.floor(rand() * 4); m > 0; m--) {
      add('message_sent', 20_000 + Math.floor(rand() * 60_000));
      messageTimes.push(t);
    }
    if (rand() < 0.3) add(rand() < 0.8 ? 'message_like' : 'message_dislike', 15_000);
    const clicked = rand() < 0.4;
    if (clicked) add('click_through', 8000);
    conversation = { messageTimes, product, clicked, converted: false };
  }
  if (rand() < 0.01) add('error', 500, { message: 'Widget script failed to load', code: 'SCRIPT_LOAD' });
  const price = Math.round(listPrice * bot.factor * 100) / 100;
  const items = [{ item_id: product, value: price, quantity: 1 + Math.floor(rand() * 2), currency: bot.currency }];
  const carted = rand() < (chatted ? 0.35 : 0.1);
  if (carted) add('added_to_cart', 30_000, { items });
  // A chat roughly quadruples the purchase rate: the effect the purchases statistic shows.
  if (carted && rand() < (chatted ? 0.6 : 0.35)) {
    add('go_to_cart', 10_000, {}, '/cart');
    const orderNum = `${bot.key.toUpperCase()}-${Math.floor(rand() * 1e9)}`;
    add('purchase', 60_000, { items, orderNum }, '/checkout/thank-you');
    // Thank-you pages fire twice now and then (legacy tracktrans): the order must count once.
    if (rand() < 0.1) add('tracktrans', 2000, { items, orderNum }, '/checkout/thank-you');
    if (conversation) conversation.converted = true;
  }
  return { events: out, conversation };
}

const QUESTIONS = ['Do you have the {p} in my size?', 'How long does shipping take for the {p}?', 'Can I return the {p} if it does not fit?', 'Is the {p} waterproof?'];
const ANSWERS = ['Yes, the {p} is available in sizes 38 to 46.', 'Orders ship within 2-3 business days.', 'Returns are free within 30 days of delivery.', 'The {p} has a water-repellent coating.'];

function demoConversation(conversationId: string, visitStart: number, outline: ChatOutline, rand: () => number) {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const fill = (s: string) => s.replaceAll('{p}', outline.product);
  // Each message_sent event is a user message; the assistant answers a few seconds later.
  const messages = outline.messageTimes.flatMap((at, i) => [
    { role: 'user', content: fill(QUESTIONS[i % QUESTIONS.length]), createdAt: new Date(visitStart + at).toISOString() },
    { role: 'assistant', content: fill(ANSWERS[i % ANSWERS.length]), createdAt: new Date(visitStart + at + 3000 + Math.floor(rand() * 5000)).toISOString() },
  ]);
  return {
    id: conversationId, startedAt: messages[0].createdAt, messages,
    analysis: {
      clickedProducts: outline.clicked ? [outline.product] : [],
      talkedAboutProducts: [outline.product, ...(rand() < 0.3 ? [pick(PRODUCTS)[0]] : [])],
      intents: [pick(INTENTS)], complaints: rand() < 0.2 ? [pick(COMPLAINTS)] : [], missingInformation: rand() < 0.25 ? [pick(MISSING)] : [],
      mood: pick(['happy', 'happy', 'neutral', 'angry'] as const),
      outcome: outline.converted ? 'success' : pick(['success', 'neutral', 'neutral', 'fail'] as const),
      humanInterventionNeeded: rand() < 0.1, converted: outline.converted,
    },
  };
}

function demoDataSources(bot: Bot, anchor: number, iso: (ms: number) => string) {
  const price = (eur: number) => `${Math.round(eur * bot.factor * 100) / 100} ${bot.currency}`;
  const catalog = PRODUCTS.map(([name, category, eur]) => `${name};${category};${price(eur)}`).join('\n');
  const chunks = PRODUCTS.map(([name, category, eur], index) => ({
    id: id(`chunk:${bot.key}:catalog:${index}`), index, tokenCount: 14, embedding: null,
    content: `${name} (${category}): ${price(eur)}. Free returns within 30 days. Ships in 2-3 days.`,
  }));
  const faq = ['Shipping takes 2-3 business days within the EU.', 'Returns are free within 30 days of delivery.', 'We accept cards, PayPal and invoice.'];
  const page = (name: string, i: number) => ({
    id: id(`ds:${bot.key}:site:${name}`), name: `/${name}`, type: 'url', subtype: null, status: i === 0 ? 'completed' : 'processing',
    source: `https://${bot.key}.example.com/${name}`, documentCount: i === 0 ? 1 : null, productCount: null, autoUpdate: false,
    rawPath: null, simpleFetch: true, extraTags: [{ name: 'static_category', value: name }], settings: {},
    createdAt: iso(anchor - 10 * DAY + i * 60_000), updatedAt: iso(anchor - DAY),
    chunks: i === 0 ? [{ id: id(`chunk:${bot.key}:site:${name}`), index: 0, content: faq[0], tokenCount: 10, embedding: null }] : [],
  });
  return [
    {
      id: id(`ds:${bot.key}:catalog`), name: 'Product catalog', type: 'file', subtype: 'csv', status: 'completed',
      source: 'catalog.csv', documentCount: chunks.length, productCount: PRODUCTS.length, autoUpdate: true,
      rawPath: `raw/${bot.key}/catalog.csv`, rawContent: `name;category;price\n${catalog}\n`, simpleFetch: null,
      extraTags: [{ name: 'static_category', value: 'catalog' }], settings: { delimiter: ';' },
      createdAt: iso(anchor - 20 * DAY), updatedAt: iso(anchor - 2 * DAY), chunks, children: [],
    },
    {
      id: id(`ds:${bot.key}:site`), name: 'Help center', type: 'crawl', subtype: 'sitemap', status: 'completed',
      source: `https://${bot.key}.example.com/sitemap.xml`, documentCount: faq.length, productCount: null, autoUpdate: false,
      rawPath: null, rawContent: null, simpleFetch: true, extraTags: [{ name: 'static_category', value: 'help' }], settings: {},
      createdAt: iso(anchor - 10 * DAY), updatedAt: iso(anchor - DAY),
      chunks: faq.map((content, index) => ({ id: id(`chunk:${bot.key}:faq:${index}`), index, content, tokenCount: 10, embedding: null })),
      children: ['shipping', 'returns'].map(page),
    },
    {
      id: id(`ds:${bot.key}:brand-story`), name: 'Brand story', type: 'text', subtype: null, status: 'failed',
      source: null, documentCount: null, productCount: null, autoUpdate: null, rawPath: null, rawContent: null,
      simpleFetch: null, extraTags: null, settings: null, createdAt: iso(anchor - 3 * DAY), updatedAt: iso(anchor - 3 * DAY), chunks: [],
    },
  ];
}
