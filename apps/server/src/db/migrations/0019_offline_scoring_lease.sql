ALTER TABLE "offline_runs" ADD COLUMN "scoring_holder" text;--> statement-breakpoint
ALTER TABLE "offline_runs" ADD COLUMN "scoring_expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "offline_runs_scoring" ON "offline_runs" USING btree ("scoring_expires_at") WHERE "offline_runs"."status" = 'scoring';