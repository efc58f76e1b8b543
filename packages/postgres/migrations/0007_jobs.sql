-- One durable queue for every kind of job. email_jobs becomes `jobs` (its rows, ids, states,
-- attempts, due times and errors stay as they are); every webhook delivery moves into it with
-- its id, state, attempts, due time and error, its own columns in the payload, kind `webhook`.
-- Nothing queued is lost.
ALTER TABLE "email_jobs" RENAME TO "jobs";--> statement-breakpoint
ALTER TABLE "jobs" RENAME CONSTRAINT "email_jobs_pkey" TO "jobs_pkey";--> statement-breakpoint
ALTER TABLE "jobs" RENAME CONSTRAINT "email_jobs_status_check" TO "jobs_status_check";--> statement-breakpoint
ALTER INDEX "email_jobs_status_run_at_idx" RENAME TO "jobs_status_run_at_idx";--> statement-breakpoint
INSERT INTO "jobs" ("id", "kind", "payload", "status", "attempts", "run_at", "last_error", "created_at", "updated_at")
SELECT "id", 'webhook',
  jsonb_build_object('alertId', "alert_id", 'transitionId', "transition_id", 'url', "url", 'body', "body", 'signature', "signature"),
  "status", "attempts", "next_attempt_at", "last_error", "created_at", "updated_at"
FROM "webhook_deliveries";--> statement-breakpoint
DROP TABLE "webhook_deliveries" CASCADE;
