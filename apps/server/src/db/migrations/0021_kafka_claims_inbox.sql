CREATE TABLE "event_claims" (
	"org_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"digest" text NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "event_claims_org_id_event_id_pk" PRIMARY KEY("org_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "ingest_inbox" (
	"topic" text NOT NULL,
	"partition" integer NOT NULL,
	"next_offset" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ingest_inbox_topic_partition_pk" PRIMARY KEY("topic","partition")
);
--> statement-breakpoint
CREATE INDEX "event_claims_time" ON "event_claims" USING btree ("claimed_at");