CREATE TABLE "call_value_counts" (
	"experiment_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"day" date NOT NULL,
	"variant" text NOT NULL,
	"value" double precision NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "call_value_counts_experiment_id_kind_day_variant_value_pk" PRIMARY KEY("experiment_id","kind","day","variant","value")
);
--> statement-breakpoint
ALTER TABLE "user_day_stats" ADD COLUMN "cost_n" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "events_call_latency" ON "events" USING btree ("experiment_id","latency_ms") WHERE type = 'model_call' and latency_ms is not null;--> statement-breakpoint
CREATE INDEX "events_call_tokens" ON "events" USING btree ("experiment_id",(coalesce(input_tokens, 0) + coalesce(output_tokens, 0))) WHERE type = 'model_call' and (input_tokens is not null or output_tokens is not null);--> statement-breakpoint
CREATE INDEX "events_call_cost" ON "events" USING btree ("experiment_id","cost_usd") WHERE type = 'model_call' and cost_usd is not null;--> statement-breakpoint
-- Backfill from the events the fold has already folded (those still queued in ingest_pending are
-- counted when the fold takes them), as the fold counts them: with a variant, not quarantined.
UPDATE "user_day_stats" s SET "cost_n" = c.n
FROM (
  SELECT e.experiment_id, (e.occurred_at AT TIME ZONE 'UTC')::date AS day, e.variant, e.user_id, count(*) AS n
  FROM "events" e
  WHERE e.type = 'model_call' AND e.cost_usd IS NOT NULL AND e.variant IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM "ingest_pending" p WHERE p.txid = e.txid)
    AND NOT EXISTS (SELECT 1 FROM "ingest_quarantine" q WHERE q.org_id = e.org_id AND q.event_id = e.event_id)
  GROUP BY 1, 2, 3, 4
) c
WHERE s.experiment_id = c.experiment_id AND s.day = c.day AND s.variant = c.variant AND s.user_id = c.user_id;
--> statement-breakpoint
INSERT INTO "call_value_counts" ("experiment_id", "kind", "day", "variant", "value", "n")
SELECT v.experiment_id, v.kind, v.day, v.variant, v.value, count(*)
FROM (
  SELECT e.experiment_id, (e.occurred_at AT TIME ZONE 'UTC')::date AS day, e.variant, k.kind, k.value
  FROM "events" e
  CROSS JOIN LATERAL (VALUES
    ('latency', e.latency_ms::float8),
    ('tokens', CASE WHEN e.input_tokens IS NOT NULL OR e.output_tokens IS NOT NULL
      THEN (coalesce(e.input_tokens, 0) + coalesce(e.output_tokens, 0))::float8 END),
    ('cost', e.cost_usd::float8)
  ) AS k(kind, value)
  WHERE e.type = 'model_call' AND e.variant IS NOT NULL AND k.value IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM "ingest_pending" p WHERE p.txid = e.txid)
    AND NOT EXISTS (SELECT 1 FROM "ingest_quarantine" q WHERE q.org_id = e.org_id AND q.event_id = e.event_id)
) v
GROUP BY 1, 2, 3, 4, 5;
