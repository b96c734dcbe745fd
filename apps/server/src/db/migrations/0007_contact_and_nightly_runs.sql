CREATE TABLE "contact_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"company" text,
	"kind" text NOT NULL,
	"message" text NOT NULL,
	"client_ip" text NOT NULL,
	"mail_status" text NOT NULL,
	"mail_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "nightly_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"day" date NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"experiments" integer NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE INDEX "contact_messages_ip_time" ON "contact_messages" USING btree ("client_ip","created_at");--> statement-breakpoint
CREATE INDEX "contact_messages_time" ON "contact_messages" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "nightly_runs_finished" ON "nightly_runs" USING btree ("finished_at");