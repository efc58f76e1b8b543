import { DEFAULT_MAX_PURCHASE_EUR, type PurchasePolicy } from '@chatlytics/events';
import { createOriginPolicy, type OriginPolicy } from '../origin-policy.js';

/** A chatbot's settings as stored (PostgreSQL `chatbots`): what the tracking endpoint enforces for it. */
export interface ChatbotPolicyRow extends PurchasePolicy {
  allowedOrigins: readonly string[];
  /** The holdout's share of visitors, 0–50 (services/ingest/README.md, "Holdout"); absent: 0. */
  holdoutPercent?: number;
  /** The holdout assignment's HMAC key; absent: no holdout. */
  holdoutKey?: string;
}

/** The settings ready to apply: the origin list compiled once per load, not per event. */
export interface ChatbotPolicy extends PurchasePolicy {
  origins: OriginPolicy;
  holdoutPercent: number;
  holdoutKey: string;
}

/**
 * Where the tracking endpoint learns a chatbot's settings. `policyOf` never rejects: tracking
 * keeps answering when the settings cannot be read (policy-cache.ts says what is served then).
 */
export interface ChatbotPolicySource {
  policyOf(chatbotId: string): Promise<ChatbotPolicy>;
}

/** Reads one chatbot's stored settings; null for an unknown chatbot. May reject (database down). */
export type ChatbotPolicyLoader = (chatbotId: string) => Promise<ChatbotPolicyRow | null>;

export const compilePolicy = (row: ChatbotPolicyRow): ChatbotPolicy => ({
  origins: createOriginPolicy(row.allowedOrigins),
  maxPurchaseEur: row.maxPurchaseEur,
  requireSignedPurchases: row.requireSignedPurchases,
  signingSecret: row.signingSecret,
  holdoutPercent: row.holdoutPercent ?? 0,
  holdoutKey: row.holdoutKey ?? '',
});

/**
 * What an unknown chatbot (or one whose settings were never readable) gets: the defaults of a
 * new chatbot — any origin, the default EUR cap, signatures not required, no holdout.
 */
export const DEFAULT_CHATBOT_POLICY: ChatbotPolicy = Object.freeze(compilePolicy({
  allowedOrigins: [], maxPurchaseEur: DEFAULT_MAX_PURCHASE_EUR, requireSignedPurchases: false, signingSecret: null,
}));

/** The source without a database (tests, an ingest started without DATABASE_URL): the defaults for every chatbot. */
export const defaultPolicySource: ChatbotPolicySource = { policyOf: async () => DEFAULT_CHATBOT_POLICY };
