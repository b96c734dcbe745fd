-- Aggregate sums become exact `numeric`: the fold adds each event's value cast to numeric, so
-- a sum or a sum of squares can neither overflow (float8 did at 1e155 squared) nor drift.
ALTER TABLE "user_day_business" ALTER COLUMN "sum" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "user_day_business" ALTER COLUMN "sum_squares" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "user_day_stats" ALTER COLUMN "latency_sum" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "user_day_stats" ALTER COLUMN "latency_sq" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "user_day_stats" ALTER COLUMN "tokens_sum" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "user_day_stats" ALTER COLUMN "tokens_sq" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "user_day_stats" ALTER COLUMN "cost_sum" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "user_day_stats" ALTER COLUMN "cost_sq" SET DATA TYPE numeric;