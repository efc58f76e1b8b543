import {
  daysToRepair, repairDays, repairTokenIds, TOKEN_ID_CHECKS, verifyAggregates, type ClickHouseEngine, type Difference, type VerifyScope,
} from '@chatlytics/clickhouse';
import type { CommandInput } from './spec.js';

type VerifyInput = Extract<CommandInput, { command: 'verify' }>;
/** Differences printed in full; the rest are counted. */
const SHOWN = 50;
const DAY_MS = 86_400_000;

function summary(differences: readonly Difference[]) {
  const byCheck: Record<string, number> = {};
  for (const d of differences) byCheck[d.check] = (byCheck[d.check] ?? 0) + 1;
  return { total: differences.length, byCheck, first: differences.slice(0, SHOWN) };
}

/**
 * `verify`: every aggregate and the token ids computed again from `events` and compared
 * (clickhouse/README.md, "Verifying and repairing"); exit code 1 when anything differs (after
 * `--repair`: when anything still differs). The repair renumbers tokens only while no writer runs
 * (writers keep ids in memory), and recomputes a day only once nothing was stored into it for two
 * minutes, unless every engine is this process's own.
 */
export async function verify(clickhouse: ClickHouseEngine, input: VerifyInput, where: { serverRunning: boolean; embedded: boolean }) {
  const scope: VerifyScope = {
    chatbotId: input.chatbot,
    from: input.from === undefined ? undefined : Date.parse(`${input.from}T00:00:00Z`),
    to: input.to === undefined ? undefined : Date.parse(`${input.to}T00:00:00Z`) + DAY_MS,
  };
  const found = await verifyAggregates(clickhouse, scope);
  const report: Record<string, unknown> = { scope: { chatbot: input.chatbot ?? 'all', from: input.from ?? 'all', to: input.to ?? 'all' }, differences: summary(found) };
  if (!input.repair || found.length === 0) return { ...report, exitCode: found.length > 0 ? 1 : 0 };

  const days = daysToRepair(found);
  const idChatbots = [...new Set(found.filter((d) => TOKEN_ID_CHECKS.has(d.check)).map((d) => d.chatbot_id))];
  if (idChatbots.length > 0 && where.serverRunning) {
    report.tokenIds = 'not repaired: token ids are renumbered only while no consumer runs (stop the server, then run verify --repair)';
  } else {
    let tokens = 0;
    for (const chatbot of idChatbots) {
      const repaired = await repairTokenIds(clickhouse, chatbot);
      tokens += repaired.tokens;
      days.push(...repaired.days);
    }
    report.tokenIds = { chatbots: idChatbots.length, tokens };
  }
  const unique = [...new Map(days.map((d) => [`${d.chatbotId}\n${d.day}`, d])).values()];
  const result = await repairDays(clickhouse, unique, where.embedded && !where.serverRunning ? 0 : undefined);
  report.days = { repaired: result.repaired.length, busy: result.busy };
  const left = await verifyAggregates(clickhouse, scope);
  return { ...report, remaining: summary(left), exitCode: left.length > 0 ? 1 : 0 };
}
