-- Store pages are cached per process (src/server/domains/store/store-cache.ts); every write to what a
-- store page shows notifies 'store_changed' with the project id ('*': every page) at commit.
CREATE OR REPLACE FUNCTION cartridge_notify_store_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
  project text;
BEGIN
  CASE TG_ARGV[0]
    WHEN 'column' THEN project := changed ->> TG_ARGV[1];
    WHEN 'branch' THEN SELECT b.project_id INTO project FROM branches b WHERE b.id = changed ->> 'branch_id';
    WHEN 'version' THEN SELECT v.project_id INTO project FROM versions v WHERE v.id = changed ->> 'version_id';
    ELSE project := '*';
  END CASE;
  -- A row whose parent went in the same statement (cascades) is covered by the parent's own trigger.
  IF project IS NOT NULL THEN
    PERFORM pg_notify('store_changed', project);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER projects_store_changed AFTER INSERT OR UPDATE OR DELETE ON projects FOR EACH ROW EXECUTE FUNCTION cartridge_notify_store_changed('column', 'id');
--> statement-breakpoint
CREATE TRIGGER branches_store_changed AFTER INSERT OR UPDATE OR DELETE ON branches FOR EACH ROW EXECUTE FUNCTION cartridge_notify_store_changed('column', 'project_id');
--> statement-breakpoint
CREATE TRIGGER versions_store_changed AFTER UPDATE OR DELETE ON versions FOR EACH ROW EXECUTE FUNCTION cartridge_notify_store_changed('column', 'project_id');
--> statement-breakpoint
CREATE TRIGGER project_users_store_changed AFTER INSERT OR UPDATE OR DELETE ON project_users FOR EACH ROW EXECUTE FUNCTION cartridge_notify_store_changed('column', 'project_id');
--> statement-breakpoint
CREATE TRIGGER branch_versions_store_changed AFTER INSERT OR UPDATE OR DELETE ON branch_versions FOR EACH ROW EXECUTE FUNCTION cartridge_notify_store_changed('branch');
--> statement-breakpoint
CREATE TRIGGER version_packages_store_changed AFTER INSERT OR UPDATE OR DELETE ON version_packages FOR EACH ROW EXECUTE FUNCTION cartridge_notify_store_changed('version');
--> statement-breakpoint
CREATE TRIGGER users_store_changed AFTER UPDATE OF title ON users FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title) EXECUTE FUNCTION cartridge_notify_store_changed('all');
--> statement-breakpoint
CREATE TRIGGER credentials_store_changed AFTER INSERT OR UPDATE OR DELETE ON credentials FOR EACH ROW EXECUTE FUNCTION cartridge_notify_store_changed('all');
