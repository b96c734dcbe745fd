-- The events table becomes the ingest log: each row carries the id of the transaction that
-- stored it, and the aggregation worker folds everything below a watermark (transactions below
-- the oldest running one are finished, so no row can appear there later).
CREATE TABLE "ingest_watermark" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"folded_below" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "txid" bigint DEFAULT (pg_current_xact_id()::text::bigint) NOT NULL;--> statement-breakpoint
CREATE INDEX "events_txid" ON "events" USING btree ("txid");--> statement-breakpoint
-- Batches still waiting in the old queue are folded now; every event stored before this
-- migration (given this transaction's id above) is then below the watermark.
WITH claimed AS (
  DELETE FROM "ingest_queue" RETURNING "events"
),
items AS (
  SELECT e.* FROM claimed c
  CROSS JOIN LATERAL jsonb_to_recordset(c."events") AS e(t text, x uuid, u text, v text, d date, err boolean,
    lat float8, tok float8, cost float8, bm text, val float8)
),
stats AS (
  INSERT INTO "user_day_stats" ("experiment_id", "day", "variant", "user_id", "exposures", "calls", "errors",
    "latency_n", "latency_sum", "latency_sq", "tokens_n", "tokens_sum", "tokens_sq", "cost_n", "cost_sum", "cost_sq")
  SELECT x, d, v, u, count(*) FILTER (WHERE t = 'exposure'), count(*) FILTER (WHERE t = 'model_call'),
    count(*) FILTER (WHERE t = 'model_call' AND err), count(lat), coalesce(sum(lat), 0), coalesce(sum(lat * lat), 0),
    count(tok), coalesce(sum(tok), 0), coalesce(sum(tok * tok), 0),
    count(cost), coalesce(sum(cost), 0), coalesce(sum(cost * cost), 0)
  FROM items WHERE t IN ('exposure', 'model_call') GROUP BY x, d, v, u
  ON CONFLICT ("experiment_id", "day", "variant", "user_id") DO UPDATE SET
    "exposures" = "user_day_stats"."exposures" + excluded."exposures",
    "calls" = "user_day_stats"."calls" + excluded."calls",
    "errors" = "user_day_stats"."errors" + excluded."errors",
    "latency_n" = "user_day_stats"."latency_n" + excluded."latency_n",
    "latency_sum" = "user_day_stats"."latency_sum" + excluded."latency_sum",
    "latency_sq" = "user_day_stats"."latency_sq" + excluded."latency_sq",
    "tokens_n" = "user_day_stats"."tokens_n" + excluded."tokens_n",
    "tokens_sum" = "user_day_stats"."tokens_sum" + excluded."tokens_sum",
    "tokens_sq" = "user_day_stats"."tokens_sq" + excluded."tokens_sq",
    "cost_n" = "user_day_stats"."cost_n" + excluded."cost_n",
    "cost_sum" = "user_day_stats"."cost_sum" + excluded."cost_sum",
    "cost_sq" = "user_day_stats"."cost_sq" + excluded."cost_sq"
  RETURNING 1
)
INSERT INTO "user_day_business" ("experiment_id", "day", "metric", "variant", "user_id", "n", "sum", "sum_squares")
SELECT x, d, bm, v, u, count(*), sum(val), sum(val * val) FROM items WHERE t = 'business_event'
GROUP BY x, d, bm, v, u
ON CONFLICT ("experiment_id", "day", "metric", "variant", "user_id") DO UPDATE SET
  "n" = "user_day_business"."n" + excluded."n",
  "sum" = "user_day_business"."sum" + excluded."sum",
  "sum_squares" = "user_day_business"."sum_squares" + excluded."sum_squares";--> statement-breakpoint
INSERT INTO "ingest_watermark" ("id", "folded_below") VALUES (1, pg_current_xact_id()::text::bigint + 1);--> statement-breakpoint
DROP TABLE "ingest_queue" CASCADE;
