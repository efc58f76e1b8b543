import { createRng, type Rng } from './prng.js';
import { DAY_MS } from './time.js';

/** Same field names as the fixture format (see the fixture format in services/standalone/README.md), times as epoch milliseconds. */
export interface GeneratedMessage { role: 'user' | 'assistant'; content: string; createdAt: number }
export interface GeneratedAnalysis {
  clickedProducts: string[];
  talkedAboutProducts: string[];
  intents: string[];
  complaints: string[];
  missingInformation: string[];
  mood: 'happy' | 'angry' | 'neutral';
  outcome: 'success' | 'fail' | 'neutral';
  humanInterventionNeeded: boolean;
  converted: boolean;
}
export interface GeneratedConversation {
  id: string;
  chatbotId: string;
  startedAt: number;
  messages: GeneratedMessage[];
  analysis: GeneratedAnalysis | null;
  /** The visitor's tracker token, when a test links the conversation to generated events. */
  visitorToken?: string | null;
}

export interface ConversationScenario {
  seed: number;
  now: number;
  chatbotId: string;
  otherChatbotIds: readonly string[];
  /** Conversations to generate (default 60–220: enough that the 100-report cap is often hit). */
  count?: number;
  spanDays?: number;
}

const PRODUCTS = ['Red Shoe', 'Blue Hat', 'Laptop X', 'Ärmel Shirt', 'zebra mug', 'Apple'];
const INTENTS = ['find product', 'order status', 'Return', 'size advice'];
const COMPLAINTS = ['slow delivery', 'Price', 'rude bot'];
const MISSING = ['shipping to CH', 'warranty', 'Size chart'];

/** The same item as users and the analyser really write it: other case, stray blanks, empty. */
function spelling(rng: Rng, item: string): string {
  const roll = rng.next();
  if (roll < 0.15) return item.toUpperCase();
  if (roll < 0.3) return item.toLowerCase();
  if (roll < 0.4) return `  ${item} `;
  if (roll < 0.43) return '   ';
  return item;
}

function list(rng: Rng, vocabulary: readonly string[], max: number): string[] {
  // Sometimes the same item twice in one conversation: it still counts once for it.
  return Array.from({ length: rng.int(0, max) }, () => spelling(rng, rng.pick(vocabulary)));
}

/**
 * Conversations with messages around the window ends (started before and active inside, or
 * started inside), durations below and above the 60- and 90-minute caps, conversations
 * without messages or without analysis, and other chatbots' conversations.
 */
export function generateConversations(scenario: ConversationScenario): GeneratedConversation[] {
  const rng = createRng(scenario.seed ^ 0x5eed);
  const span = (scenario.spanDays ?? 40) * DAY_MS;
  const count = scenario.count ?? rng.int(60, 220);
  const out: GeneratedConversation[] = [];
  for (let i = 0; i < count; i++) {
    // `+ i` keeps start times distinct, so "the 100 most recently started" has one answer.
    const startedAt = scenario.now - Math.floor(rng.next() * span) + i;
    const messages: GeneratedMessage[] = [];
    let t = startedAt;
    const longGaps = rng.chance(0.2);
    for (let m = rng.chance(0.1) ? 0 : rng.int(1, 8); m > 0; m--) {
      t += longGaps ? rng.int(1, 90) * 60_000 : rng.int(1, 300) * 1000;
      messages.push({ role: rng.chance(0.5) ? 'assistant' : 'user', content: `m${m}`, createdAt: t });
    }
    const roll = rng.next();
    out.push({
      id: rng.uuid(),
      chatbotId: roll < 0.8 || scenario.otherChatbotIds.length === 0 ? scenario.chatbotId : rng.pick(scenario.otherChatbotIds),
      startedAt,
      messages,
      analysis: rng.chance(0.8) ? {
        clickedProducts: list(rng, PRODUCTS, 3),
        talkedAboutProducts: list(rng, PRODUCTS, 4),
        intents: list(rng, INTENTS, 2),
        complaints: list(rng, COMPLAINTS, 2),
        missingInformation: list(rng, MISSING, 2),
        mood: rng.pick(['happy', 'angry', 'neutral'] as const),
        outcome: rng.pick(['success', 'fail', 'neutral'] as const),
        humanInterventionNeeded: rng.chance(0.2),
        converted: rng.chance(0.3),
      } : null,
    });
  }
  return out;
}
