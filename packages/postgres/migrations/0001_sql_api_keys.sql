CREATE TABLE "sql_api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"queries_per_hour" integer,
	"read_rows_per_hour" bigint
);
--> statement-breakpoint
CREATE UNIQUE INDEX "sql_api_keys_key_hash_key" ON "sql_api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "sql_api_keys_active_name_key" ON "sql_api_keys" USING btree ("name") WHERE "sql_api_keys"."revoked_at" IS NULL;