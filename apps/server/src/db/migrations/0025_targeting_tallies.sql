CREATE TABLE "targeting_tallies" (
	"org_id" uuid NOT NULL,
	"experiment_id" uuid NOT NULL,
	"day" date NOT NULL,
	"matched" bigint DEFAULT 0 NOT NULL,
	"excluded" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "targeting_tallies_org_id_experiment_id_day_pk" PRIMARY KEY("org_id","experiment_id","day")
);
