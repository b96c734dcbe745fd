ALTER TABLE "events" ADD COLUMN "text_key" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "prompt_bytes" integer;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "response_bytes" integer;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "text_sha256" text;