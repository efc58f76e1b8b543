ALTER TABLE "chatbots" ADD COLUMN "orders_key_hash" text;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "orders_signing_secret" text;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "shopify_webhook_secret" text;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "woocommerce_webhook_secret" text;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "revenue_source" text DEFAULT 'tracker' NOT NULL;--> statement-breakpoint
ALTER TABLE "chatbots" ADD COLUMN "attribution_window_days" integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE "chatbots" ADD CONSTRAINT "chatbots_revenue_source_check" CHECK ("chatbots"."revenue_source" IN ('tracker', 'orders'));--> statement-breakpoint
ALTER TABLE "chatbots" ADD CONSTRAINT "chatbots_attribution_window_days_check" CHECK ("chatbots"."attribution_window_days" BETWEEN 1 AND 30);