-- Rollouts: the ramp of an experiment (its step, when the next one is due, whether it is
-- paused) and every evaluation of its guard.
CREATE TABLE "experiment_rollouts" (
	"experiment_id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"state" text NOT NULL,
	"step" integer NOT NULL,
	"step_started_at" timestamp with time zone NOT NULL,
	"advance_at" timestamp with time zone,
	"guard_at" timestamp with time zone,
	"paused_by" text,
	"paused_reason" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rollout_evaluations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"experiment_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"evaluated_at" timestamp with time zone NOT NULL,
	"step" integer NOT NULL,
	"coverage" double precision NOT NULL,
	"srm_p" double precision,
	"guardrails" jsonb NOT NULL,
	"action" text NOT NULL,
	"reason" text
);
--> statement-breakpoint
ALTER TABLE "experiment_rollouts" ADD CONSTRAINT "experiment_rollouts_experiment_id_experiments_id_fk" FOREIGN KEY ("experiment_id") REFERENCES "public"."experiments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "experiment_rollouts" ADD CONSTRAINT "experiment_rollouts_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rollout_evaluations" ADD CONSTRAINT "rollout_evaluations_experiment_id_experiments_id_fk" FOREIGN KEY ("experiment_id") REFERENCES "public"."experiments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "experiment_rollouts_advance_due" ON "experiment_rollouts" USING btree ("advance_at") WHERE state = 'running';--> statement-breakpoint
CREATE INDEX "experiment_rollouts_guard_due" ON "experiment_rollouts" USING btree ("guard_at") WHERE state = 'running';--> statement-breakpoint
CREATE UNIQUE INDEX "rollout_evaluations_once" ON "rollout_evaluations" USING btree ("experiment_id","evaluated_at");
