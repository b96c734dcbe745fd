CREATE TABLE "accepted_events" (
	"org_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"accepted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accepted_events_org_id_event_id_pk" PRIMARY KEY("org_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"org_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"experiment_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"variant" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"latency_ms" double precision,
	"input_tokens" double precision,
	"output_tokens" double precision,
	"cost_usd" double precision,
	"model" text,
	"error" text,
	"prompt" text,
	"response" text,
	"business_metric" text,
	"value" double precision,
	"metadata" jsonb,
	"is_test" boolean DEFAULT false NOT NULL,
	CONSTRAINT "events_org_id_event_id_pk" PRIMARY KEY("org_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "ingest_queue" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"events" jsonb NOT NULL,
	"enqueued_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_counters" (
	"org_id" uuid NOT NULL,
	"month" text NOT NULL,
	"events" bigint DEFAULT 0 NOT NULL,
	"judge_evaluations" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_counters_org_id_month_pk" PRIMARY KEY("org_id","month")
);
--> statement-breakpoint
CREATE TABLE "user_day_aggregates" (
	"experiment_id" uuid NOT NULL,
	"day" date NOT NULL,
	"user_id" text NOT NULL,
	"measure" text NOT NULL,
	"variant" text NOT NULL,
	"n" bigint NOT NULL,
	"sum" double precision NOT NULL,
	"sum_squares" double precision NOT NULL,
	CONSTRAINT "user_day_aggregates_experiment_id_day_measure_variant_user_id_pk" PRIMARY KEY("experiment_id","day","measure","variant","user_id")
);
--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "plan" text DEFAULT 'free' NOT NULL;--> statement-breakpoint
CREATE INDEX "events_experiment_time" ON "events" USING btree ("experiment_id","occurred_at");