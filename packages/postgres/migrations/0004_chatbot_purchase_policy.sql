ALTER TABLE "chatbots" ADD COLUMN "allowed_origins" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "max_purchase_eur" numeric DEFAULT 100000 NOT NULL;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "require_signed_purchases" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "purchase_signing_secret" text;