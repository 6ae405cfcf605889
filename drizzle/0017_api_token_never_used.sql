-- Issue 29: an API token is not used by being created. last_used_at is null until its first request
-- (browser sessions are used by the sign-in that opens them and set it then). Tokens whose last use is
-- still their creation time were never used after the first minutes: they say "never used" now.
ALTER TABLE "sessions" ALTER COLUMN "last_used_at" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "sessions" ALTER COLUMN "last_used_at" DROP NOT NULL;--> statement-breakpoint
UPDATE "sessions" SET "last_used_at" = NULL WHERE "require_session" = false AND "last_used_at" = "created_at";
