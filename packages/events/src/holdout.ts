import { createHmac } from 'node:crypto';
import { BoundedMemo } from './bounded-memo.js';

/**
 * The holdout of a chatbot (services/ingest/README.md, "Holdout"): a share of its visitors for
 * whom the assistant stays hidden, so the revenue it adds can be measured against them.
 * '' = no holdout runs (the chatbot's holdoutPercent is 0, or the event has no chatbot).
 */
export type HoldoutArm = 'exposed' | 'holdout' | '';
export const HOLDOUT_ARMS = ['exposed', 'holdout', ''] as const;
/** The highest share a chatbot may hold out: beyond half, the exposed arm is the control. */
export const MAX_HOLDOUT_PERCENT = 50;

const TWO_32 = 2 ** 32;

/**
 * A visitor's holdout arm: HMAC-SHA256 under the chatbot's holdout key of `chatbot_id \n token`,
 * its first 32 bits as a fraction of 2³², held out when below holdoutPercent / 100.
 * - Keyed: the key lives only in the chatbot's settings (PostgreSQL), so neither a page nor a
 *   visitor can compute or pick an arm, and the arm says nothing about the token's characters
 *   (the A/B group is the token's last character: the two assignments are independent).
 * - Deterministic: the same token always gets the same arm while the percentage stays; a
 *   raised percentage only moves exposed visitors into the holdout (the threshold grows), a
 *   lowered one only the reverse.
 */
export function holdoutArmOf(key: string, chatbotId: string, token: string, holdoutPercent: number): HoldoutArm {
  if (!(holdoutPercent > 0) || chatbotId === '' || key === '') return '';
  const h = createHmac('sha256', key).update(`${chatbotId}\n${token}`).digest();
  return h.readUInt32BE(0) < Math.min(holdoutPercent, MAX_HOLDOUT_PERCENT) / 100 * TWO_32 ? 'holdout' : 'exposed';
}

/**
 * holdoutArmOf remembered for the last `maxEntries` (key, chatbot, token): a visitor sends many
 * events, and the HMAC costs more than validating one.
 */
export function createHoldoutAssigner(maxEntries = 10_000): (key: string, chatbotId: string, token: string, holdoutPercent: number) => HoldoutArm {
  const memo = new BoundedMemo((k) => {
    const [key, chatbotId, token, percent] = JSON.parse(k) as [string, string, string, number];
    return holdoutArmOf(key, chatbotId, token, percent);
  }, maxEntries);
  return (key, chatbotId, token, percent) => (percent > 0 ? memo.get(JSON.stringify([key, chatbotId, token, percent])) : '');
}
