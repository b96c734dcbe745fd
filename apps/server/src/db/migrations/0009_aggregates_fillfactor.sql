-- The fold rewrites a user-day row each time that user has new events. With room left on each
-- page the new version goes on the same page as a heap-only tuple (HOT): no new primary-key
-- entry, and the old version is pruned in place. No key column is ever updated, so every update
-- can be HOT. Takes effect for pages written from now on (bench/server/RESULTS.md).
ALTER TABLE "user_day_stats" SET (fillfactor = 50);--> statement-breakpoint
ALTER TABLE "user_day_business" SET (fillfactor = 50);
