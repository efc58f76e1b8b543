ALTER TABLE "chatbots" ADD COLUMN "holdout_percent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "holdout_key" text DEFAULT gen_random_uuid()::text NOT NULL;