CREATE TABLE "alert_transitions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"alert_id" uuid NOT NULL,
	"state" text NOT NULL,
	"value" double precision,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_transitions_state_check" CHECK ("alert_transitions"."state" in ('firing', 'resolved'))
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chatbot_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"threshold" double precision,
	"window_minutes" integer NOT NULL,
	"email" boolean DEFAULT false NOT NULL,
	"webhook_url" text,
	"secret" text NOT NULL,
	"state" text DEFAULT 'ok' NOT NULL,
	"last_value" double precision,
	"last_evaluated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alerts_kind_check" CHECK ("alerts"."kind" in ('silence', 'conversion_drop', 'dislike_share', 'ab_mismatch')),
	CONSTRAINT "alerts_state_check" CHECK ("alerts"."state" in ('ok', 'firing')),
	CONSTRAINT "alerts_window_minutes_check" CHECK ("alerts"."window_minutes" >= 1)
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"alert_id" uuid NOT NULL,
	"transition_id" uuid NOT NULL,
	"url" text NOT NULL,
	"body" text NOT NULL,
	"signature" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_status_check" CHECK ("webhook_deliveries"."status" in ('pending', 'running', 'sent', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "alert_transitions" ADD CONSTRAINT "alert_transitions_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_chatbot_id_chatbots_id_fk" FOREIGN KEY ("chatbot_id") REFERENCES "public"."chatbots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_transition_id_alert_transitions_id_fk" FOREIGN KEY ("transition_id") REFERENCES "public"."alert_transitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_transitions_alert_id_at_idx" ON "alert_transitions" USING btree ("alert_id","at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alerts_chatbot_id_idx" ON "alerts" USING btree ("chatbot_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");