-- A write of events checks its API keys in its own transaction, so the events route need not
-- look its key up in a round trip of its own first (a rotation committed before the check is
-- seen; docs/decisions/ingest.md#api-keys-and-rate-limits). A procedure: CALL returns no rows, so
-- it can follow a COPY in one simple-protocol query, and its statement's plan is kept per
-- connection. SQLSTATE AR401 names the refusal; the caller then looks the key up to say why.
CREATE PROCEDURE "arbiter_require_active_keys"("org" uuid, "key_hashes" text[]) LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT count(*) FROM "api_keys"
      WHERE "key_hash" = ANY ("key_hashes") AND "org_id" = "org" AND "revoked_at" IS NULL)
     < cardinality("key_hashes") THEN
    RAISE EXCEPTION 'an API key of this write is no longer active' USING ERRCODE = 'AR401';
  END IF;
END
$$;
