import type { Logger, Registry } from '@chatlytics/core';
import type { Database } from '@chatlytics/postgres';
import { createIngestMetrics } from '../metrics.js';
import type { ChatbotPolicySource } from './chatbot-policy.js';
import { createCachedPolicySource } from './policy-cache.js';
import { createChatbotPolicyRepository } from './policy-repository.js';

/** What the entry points hand the ingest plugin: the chatbots' settings from PostgreSQL, cached. */
export function createPolicySource(deps: { db: Database; log: Logger; registry: Registry }): ChatbotPolicySource {
  const repo = createChatbotPolicyRepository({ db: deps.db });
  const metrics = createIngestMetrics(deps.registry);
  return createCachedPolicySource({ load: (id) => repo.find(id), log: deps.log, onLoadFailure: () => metrics.policyReadFailures.inc() });
}
