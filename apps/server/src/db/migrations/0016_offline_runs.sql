CREATE TABLE "offline_results" (
	"run_id" uuid NOT NULL,
	"item_id" text NOT NULL,
	"variant" text NOT NULL,
	"repeat" integer NOT NULL,
	"output" jsonb,
	"error" text,
	"latency_ms" double precision,
	"input_tokens" bigint,
	"output_tokens" bigint,
	"cost" double precision,
	"model" text,
	"scores" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"fingerprint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "offline_results_run_id_item_id_variant_repeat_pk" PRIMARY KEY("run_id","item_id","variant","repeat")
);
--> statement-breakpoint
CREATE TABLE "offline_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"experiment_id" uuid NOT NULL,
	"experiment_version" integer NOT NULL,
	"dataset_id" uuid NOT NULL,
	"dataset_version" integer NOT NULL,
	"variants" jsonb NOT NULL,
	"repeats" integer NOT NULL,
	"scorers" jsonb NOT NULL,
	"note" text,
	"status" text NOT NULL,
	"failure_reason" text,
	"item_count" integer NOT NULL,
	"expected_results" integer NOT NULL,
	"result" jsonb,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "offline_scores" (
	"run_id" uuid NOT NULL,
	"scorer" text NOT NULL,
	"variant" text NOT NULL,
	"item_id" text NOT NULL,
	"repeat" integer NOT NULL,
	"value" double precision NOT NULL,
	CONSTRAINT "offline_scores_run_id_scorer_variant_item_id_repeat_pk" PRIMARY KEY("run_id","scorer","variant","item_id","repeat")
);
--> statement-breakpoint
ALTER TABLE "offline_results" ADD CONSTRAINT "offline_results_run_id_offline_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."offline_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offline_runs" ADD CONSTRAINT "offline_runs_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offline_runs" ADD CONSTRAINT "offline_runs_experiment_id_experiments_id_fk" FOREIGN KEY ("experiment_id") REFERENCES "public"."experiments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offline_runs" ADD CONSTRAINT "offline_runs_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offline_runs" ADD CONSTRAINT "offline_runs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offline_scores" ADD CONSTRAINT "offline_scores_run_id_offline_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."offline_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "offline_runs_experiment" ON "offline_runs" USING btree ("experiment_id","created_at");