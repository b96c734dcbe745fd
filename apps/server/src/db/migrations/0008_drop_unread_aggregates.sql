ALTER TABLE "user_day_business" DROP COLUMN "sum_squares";--> statement-breakpoint
ALTER TABLE "user_day_stats" DROP COLUMN "latency_sq";--> statement-breakpoint
ALTER TABLE "user_day_stats" DROP COLUMN "tokens_sq";--> statement-breakpoint
ALTER TABLE "user_day_stats" DROP COLUMN "cost_n";--> statement-breakpoint
ALTER TABLE "user_day_stats" DROP COLUMN "cost_sq";