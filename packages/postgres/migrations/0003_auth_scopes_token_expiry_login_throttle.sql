CREATE TABLE "login_failures" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"last_failure_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- Tokens issued before expiry existed get the default lifetime (30 days) from now, not forever.
UPDATE "auth_tokens" SET "expires_at" = now() + interval '30 days' WHERE "expires_at" IS NULL;--> statement-breakpoint
ALTER TABLE "auth_tokens" ALTER COLUMN "expires_at" SET NOT NULL;--> statement-breakpoint
-- Keys that existed before scopes keep the rights they had (manage); new keys default to read.
ALTER TABLE "api_keys" ADD COLUMN "scope" text DEFAULT 'manage' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "scope" SET DEFAULT 'read';--> statement-breakpoint
ALTER TABLE "auth_tokens" ADD COLUMN "prefix" text;--> statement-breakpoint
CREATE INDEX "login_failures_last_failure_at_idx" ON "login_failures" USING btree ("last_failure_at");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scope_check" CHECK ("api_keys"."scope" in ('read', 'manage'));
