-- Store pages carry a summary of each listed package (title, tags, size): renaming or retagging a
-- package notifies its project's page (0004_store_notify's function). The size is left out: it is set
-- once, at finalize, before any version can list the package (only ready packages join versions).
CREATE TRIGGER packages_store_changed AFTER UPDATE OF title, tags ON packages FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.tags IS DISTINCT FROM NEW.tags) EXECUTE FUNCTION cartridge_notify_store_changed('column', 'project_id');
