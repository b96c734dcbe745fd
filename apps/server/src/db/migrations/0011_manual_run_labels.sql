-- Manual runs are stored for good under a unique label: each run takes its label here first,
-- under the experiment's row lock, so runs in the same millisecond get consecutive instants
-- instead of overwriting each other, and the hourly limit counts runs still computing.
-- Labels of the runs already stored are taken, so no new run can reuse one.
CREATE TABLE "manual_run_labels" (
	"experiment_id" uuid NOT NULL,
	"label" text NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	CONSTRAINT "manual_run_labels_experiment_id_label_pk" PRIMARY KEY("experiment_id","label")
);
--> statement-breakpoint
CREATE INDEX "manual_run_labels_taken" ON "manual_run_labels" USING btree ("experiment_id","taken_at");--> statement-breakpoint
INSERT INTO "manual_run_labels" ("experiment_id", "label", "taken_at")
SELECT "experiment_id", "label", "computed_at" FROM "analysis_runs" WHERE "kind" = 'manual'
ON CONFLICT DO NOTHING;
