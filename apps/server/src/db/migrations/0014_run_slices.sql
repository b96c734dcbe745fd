-- Each computed breakdown dimension's exploratory slices, stored with the run: every declared
-- dimension on nightly runs, the asked one on manual runs; {} for runs stored before.
ALTER TABLE "analysis_runs" ADD COLUMN "slices" jsonb DEFAULT '{}'::jsonb NOT NULL;