CREATE TABLE "content_images" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"created_by" text,
	"declared_size" integer NOT NULL,
	"declared_width" integer NOT NULL,
	"declared_height" integer NOT NULL,
	"scale" integer DEFAULT 100 NOT NULL,
	"status" text DEFAULT 'uploading' NOT NULL,
	"upload_token_hash" text,
	"upload_expires_at" timestamp with time zone,
	"part_sha1" text,
	"part_size" integer,
	"width" integer,
	"height" integer,
	"source_format" text,
	"widths" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"variants" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finalized_at" timestamp with time zone,
	"encoded_at" timestamp with time zone,
	"last_referenced_at" timestamp with time zone,
	CONSTRAINT "content_images_status" CHECK ("content_images"."status" in ('uploading', 'ready', 'errored')),
	CONSTRAINT "content_images_declared" CHECK ("content_images"."declared_size" > 0 and "content_images"."declared_width" > 0 and "content_images"."declared_height" > 0 and "content_images"."scale" > 0)
);
--> statement-breakpoint
ALTER TABLE "content_images" ADD CONSTRAINT "content_images_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "content_images" ADD CONSTRAINT "content_images_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "content_images_project" ON "content_images" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "content_images_status" ON "content_images" USING btree ("status","id");