CREATE TABLE "package_chunks" (
	"package_id" text NOT NULL,
	"hash" text NOT NULL,
	"compressed_size" integer NOT NULL,
	"size" integer NOT NULL,
	CONSTRAINT "package_chunks_package_id_hash_pk" PRIMARY KEY("package_id","hash")
);
--> statement-breakpoint
CREATE TABLE "packages" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"title" text,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"entrypoint" jsonb,
	"declared_size" bigint NOT NULL,
	"base_package_id" text,
	"status" text DEFAULT 'uploading' NOT NULL,
	"upload_token_hash" text,
	"upload_expires_at" timestamp with time zone,
	"index_hash" text,
	"total_size" bigint,
	"stored_size" bigint,
	"compression" smallint,
	"chunk_count" integer,
	"error" text,
	"finalized_parts" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finalized_at" timestamp with time zone,
	CONSTRAINT "packages_status" CHECK ("packages"."status" in ('uploading', 'finalized', 'resolving', 'ready', 'errored')),
	CONSTRAINT "packages_declared_size" CHECK ("packages"."declared_size" >= 0)
);
--> statement-breakpoint
CREATE TABLE "upload_parts" (
	"package_id" text NOT NULL,
	"part" integer NOT NULL,
	"sha1" text NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upload_parts_package_id_part_pk" PRIMARY KEY("package_id","part")
);
--> statement-breakpoint
ALTER TABLE "package_chunks" ADD CONSTRAINT "package_chunks_package_id_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packages" ADD CONSTRAINT "packages_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packages" ADD CONSTRAINT "packages_base_package_id_packages_id_fk" FOREIGN KEY ("base_package_id") REFERENCES "public"."packages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upload_parts" ADD CONSTRAINT "upload_parts_package_id_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "package_chunks_hash" ON "package_chunks" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "packages_project_created" ON "packages" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "packages_base" ON "packages" USING btree ("base_package_id");--> statement-breakpoint
ALTER TABLE "version_packages" ADD CONSTRAINT "version_packages_package_id_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages"("id") ON DELETE no action ON UPDATE no action;