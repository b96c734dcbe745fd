-- An endpoint's health: when it began failing (cleared by a success) and, when the server
-- disabled it after failing too long, why.
ALTER TABLE "webhook_endpoints" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled_reason" text;
