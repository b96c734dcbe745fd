-- What a run recommends (ship, keep_control, keep_collecting, halted), stored with it; runs
-- stored before have none and are served with one derived from their stored results.
ALTER TABLE "analysis_runs" ADD COLUMN "decision" jsonb;