-- The instance's facts every process must agree on (issue 20): which SECRET_KEY they use, as its key id.
-- A process started with another key refuses to start (src/server/crypto/instance-key.ts).
CREATE TABLE "instance_facts" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"secret_key_id" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "instance_facts_one_row" CHECK ("instance_facts"."id" = 1)
);
