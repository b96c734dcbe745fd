CREATE TABLE "holdouts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"experiments" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "layers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"salt" text NOT NULL,
	"bucket_count" integer NOT NULL,
	"runs" jsonb NOT NULL,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "experiment_versions" ADD COLUMN "layer_ranges" jsonb;--> statement-breakpoint
ALTER TABLE "experiments" ADD COLUMN "kind" text DEFAULT 'experiment' NOT NULL;--> statement-breakpoint
ALTER TABLE "holdouts" ADD CONSTRAINT "holdouts_id_experiments_id_fk" FOREIGN KEY ("id") REFERENCES "public"."experiments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "holdouts" ADD CONSTRAINT "holdouts_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "layers" ADD CONSTRAINT "layers_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "holdouts_org_name" ON "holdouts" USING btree ("org_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "layers_org_name" ON "layers" USING btree ("org_id","name");