-- Issue 29: when a package was last touched (created, finalized, renamed, retagged, or left a version), so the
-- orphan collector removes packages in no version only after ORPHAN_PACKAGE_DAYS untouched. Existing rows
-- take the migration's time: a package in no version before the upgrade is kept that long from it.
ALTER TABLE "packages" ADD COLUMN "touched_at" timestamp with time zone DEFAULT now() NOT NULL;
