-- Issue 29: a project's store tags (genre and such; the rule is src/shared/schemas/store-tags.ts), shown in
-- the store page's information table and matched by the store index search. projects_store_changed
-- (0004_store_notify) already notifies 'store_changed' on every update of the row.
ALTER TABLE "projects" ADD COLUMN "store_tags" jsonb DEFAULT '[]'::jsonb NOT NULL;
