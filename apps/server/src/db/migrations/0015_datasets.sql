CREATE TABLE "dataset_items" (
	"dataset_id" uuid NOT NULL,
	"item_id" text NOT NULL,
	"valid_from" integer NOT NULL,
	"valid_to" integer,
	"input" jsonb NOT NULL,
	"expected_output" jsonb,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"group" text,
	CONSTRAINT "dataset_items_dataset_id_item_id_valid_from_pk" PRIMARY KEY("dataset_id","item_id","valid_from")
);
--> statement-breakpoint
CREATE TABLE "dataset_versions" (
	"dataset_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"item_count" integer NOT NULL,
	"change" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dataset_versions_dataset_id_version_pk" PRIMARY KEY("dataset_id","version")
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"current_version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dataset_items" ADD CONSTRAINT "dataset_items_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dataset_versions" ADD CONSTRAINT "dataset_versions_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dataset_versions" ADD CONSTRAINT "dataset_versions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dataset_items_current" ON "dataset_items" USING btree ("dataset_id","item_id") WHERE "dataset_items"."valid_to" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "datasets_org_name" ON "datasets" USING btree ("org_id","name");