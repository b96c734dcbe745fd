CREATE TABLE "shard_identity" (
	"id" integer PRIMARY KEY NOT NULL,
	"shard_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"shard_count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shard_set" (
	"position" integer PRIMARY KEY NOT NULL,
	"shard_id" uuid NOT NULL,
	"shard_count" integer NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
