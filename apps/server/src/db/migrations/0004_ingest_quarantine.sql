CREATE TABLE "ingest_quarantine" (
	"org_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"experiment_id" uuid,
	"type" text,
	"reason" text NOT NULL,
	"quarantined_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ingest_quarantine_org_id_event_id_pk" PRIMARY KEY("org_id","event_id")
);
--> statement-breakpoint
CREATE INDEX "ingest_quarantine_time" ON "ingest_quarantine" USING btree ("quarantined_at");