CREATE TABLE "analysis_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"experiment_id" uuid NOT NULL,
	"label" text NOT NULL,
	"kind" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"has_results" boolean NOT NULL,
	"srm" jsonb NOT NULL,
	"results" jsonb NOT NULL,
	"arms" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "judge_scores" (
	"org_id" uuid NOT NULL,
	"experiment_id" uuid NOT NULL,
	"metric" text NOT NULL,
	"event_id" text NOT NULL,
	"user_id" text NOT NULL,
	"variant" text NOT NULL,
	"day" date NOT NULL,
	"score" double precision NOT NULL,
	"scored_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "judge_scores_org_id_experiment_id_metric_event_id_pk" PRIMARY KEY("org_id","experiment_id","metric","event_id")
);
--> statement-breakpoint
CREATE TABLE "metric_method_overrides" (
	"experiment_id" uuid NOT NULL,
	"metric" text NOT NULL,
	"method" text NOT NULL,
	"set_by" uuid,
	"set_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "metric_method_overrides_experiment_id_metric_pk" PRIMARY KEY("experiment_id","metric")
);
--> statement-breakpoint
CREATE TABLE "pipeline_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "retention_watermarks" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"purged_before" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "analysis_runs_experiment_label" ON "analysis_runs" USING btree ("experiment_id","label");--> statement-breakpoint
CREATE INDEX "analysis_runs_experiment_computed" ON "analysis_runs" USING btree ("experiment_id","computed_at");--> statement-breakpoint
CREATE INDEX "judge_scores_experiment_day" ON "judge_scores" USING btree ("experiment_id","metric","day");