-- Model prices: an org's own rows over the built-in table, the token kinds a model call may
-- carry, the price row that priced a call, and an index over the calls no row priced.
CREATE TABLE "model_prices" (
	"org_id" uuid NOT NULL,
	"pattern" text NOT NULL,
	"effective_from" date NOT NULL,
	"input_per_million" double precision NOT NULL,
	"output_per_million" double precision NOT NULL,
	"cached_input_per_million" double precision,
	"reasoning_per_million" double precision,
	"source" text,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "model_prices_org_id_pattern_effective_from_pk" PRIMARY KEY("org_id","pattern","effective_from")
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "cached_input_tokens" double precision;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "reasoning_tokens" double precision;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "priced_by" text;--> statement-breakpoint
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_unpriced" ON "events" USING btree ("org_id","occurred_at") WHERE type = 'model_call' and cost_usd is null and model is not null;