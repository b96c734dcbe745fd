ALTER TABLE "offline_results" DROP CONSTRAINT "offline_results_run_id_offline_runs_id_fk";
