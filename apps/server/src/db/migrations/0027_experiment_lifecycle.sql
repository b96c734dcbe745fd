-- The experiment lifecycle: every existing experiment is running, as it was served before;
-- the stop's conclusion, served variant, reason, instant and actor are set by the stop, and
-- archived_from remembers which status unarchive restores. A nightly run of the day an
-- experiment stopped, its window ending at the stop, is marked final.
ALTER TABLE "analysis_runs" ADD COLUMN "final" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "experiments" ADD COLUMN "status" text DEFAULT 'running' NOT NULL;--> statement-breakpoint
ALTER TABLE "experiments" ADD COLUMN "archived_from" text;--> statement-breakpoint
ALTER TABLE "experiments" ADD COLUMN "stop_conclusion" text;--> statement-breakpoint
ALTER TABLE "experiments" ADD COLUMN "served_variant" text;--> statement-breakpoint
ALTER TABLE "experiments" ADD COLUMN "stop_reason" text;--> statement-breakpoint
ALTER TABLE "experiments" ADD COLUMN "stopped_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "experiments" ADD COLUMN "stopped_by" uuid;--> statement-breakpoint
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_stopped_by_users_id_fk" FOREIGN KEY ("stopped_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;