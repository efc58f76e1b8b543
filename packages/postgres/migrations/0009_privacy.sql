-- Personal data (README.md, "Personal data"): the audit of visitor erasures, and each chatbot's
-- retention in days (395 for every existing chatbot as for new ones).
CREATE TABLE "visitor_erasures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"chatbot_id" uuid NOT NULL,
	"requested_by_user_id" uuid,
	"requested_by_credential_id" uuid,
	"token_hmac" text NOT NULL,
	"token_digest" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"removed" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "visitor_erasures_status_check" CHECK ("visitor_erasures"."status" in ('pending', 'complete'))
);
--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "retention_days" integer DEFAULT 395 NOT NULL;--> statement-breakpoint
ALTER TABLE "visitor_erasures" ADD CONSTRAINT "visitor_erasures_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "visitor_erasures_account_idx" ON "visitor_erasures" USING btree ("account_id","requested_at");