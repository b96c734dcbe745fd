-- The fold no longer stops below the oldest transaction running on the server
-- (pg_snapshot_xmin counts every database's transactions, so one open transaction anywhere froze
-- it). Each transaction that stores events now lists itself in "ingest_pending", in the same
-- transaction (a statement trigger, so every writer does, COPY included); the fold deletes the
-- rows it folds in the transaction that folds them. A row becomes visible exactly when its
-- events do, so nothing waits for anyone else's transaction.
CREATE TABLE "ingest_pending" (
	"txid" bigint PRIMARY KEY NOT NULL,
	"accepted_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "ingest_pending_accepted" ON "ingest_pending" USING btree ("accepted_at");--> statement-breakpoint
CREATE FUNCTION "ingest_pending_mark"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ingest_pending" ("txid") VALUES (pg_current_xact_id()::text::bigint)
  ON CONFLICT ("txid") DO NOTHING;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "events_pending" AFTER INSERT ON "events"
  FOR EACH STATEMENT EXECUTE FUNCTION "ingest_pending_mark"();--> statement-breakpoint
-- Events above the old watermark are not folded yet: they enter the queue, dated by their receipt.
INSERT INTO "ingest_pending" ("txid", "accepted_at")
SELECT "txid", min("received_at") FROM "events"
WHERE "txid" >= (SELECT "folded_below" FROM "ingest_watermark" WHERE "id" = 1)
GROUP BY "txid"
ON CONFLICT ("txid") DO NOTHING;--> statement-breakpoint
ALTER TABLE "ingest_watermark" DROP COLUMN "folded_below";--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD COLUMN "folded_through" timestamp with time zone;
