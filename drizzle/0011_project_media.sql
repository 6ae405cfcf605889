-- A project's cover and screenshots (issue 19). The unique key on content_images comes first: it is
-- what project_media's (project_id, image_id) foreign key references (an image is only its own
-- project's media).
ALTER TABLE "content_images" ADD CONSTRAINT "content_images_project_id" UNIQUE("project_id","id");--> statement-breakpoint
CREATE TABLE "project_media" (
	"project_id" text NOT NULL,
	"role" text NOT NULL,
	"position" integer NOT NULL,
	"image_id" text NOT NULL,
	CONSTRAINT "project_media_project_id_role_position_pk" PRIMARY KEY("project_id","role","position"),
	CONSTRAINT "project_media_role" CHECK ("project_media"."role" in ('cover', 'screenshot')),
	CONSTRAINT "project_media_position" CHECK ("project_media"."position" >= 0 and ("project_media"."role" <> 'cover' or "project_media"."position" = 0))
);
--> statement-breakpoint
ALTER TABLE "project_media" ADD CONSTRAINT "project_media_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_media" ADD CONSTRAINT "project_media_image_fk" FOREIGN KEY ("project_id","image_id") REFERENCES "public"."content_images"("project_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "project_media_image" ON "project_media" USING btree ("image_id");--> statement-breakpoint
-- Store pages and the store index show the media: every write (a PUT, an image's cascade) notifies
-- 'store_changed' with the project id through 0004_store_notify's function (identical notifications of
-- one transaction are delivered once).
CREATE TRIGGER project_media_store_changed AFTER INSERT OR UPDATE OR DELETE ON project_media FOR EACH ROW EXECUTE FUNCTION cartridge_notify_store_changed('column', 'project_id');
