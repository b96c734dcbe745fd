-- A guardrail violation is audited once per (experiment, run label, metric, treatment): a
-- re-run night inserts nothing new (ON CONFLICT DO NOTHING against this index).
CREATE UNIQUE INDEX "audit_log_guardrail_once" ON "audit_log" USING btree ("target_id",("details"->>'run'),("details"->>'metric'),("details"->>'treatment')) WHERE "audit_log"."action" = 'guardrail.violated';