CREATE TABLE "branch_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"branch_id" text NOT NULL,
	"version_id" text NOT NULL,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "branches" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"title" text NOT NULL,
	"is_public" boolean DEFAULT false NOT NULL,
	"quota_count" integer,
	"quota_time" bigint,
	"quota_non_current_time" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "branches_quotas_non_negative" CHECK (coalesce("branches"."quota_count", 0) >= 0 and coalesce("branches"."quota_time", 0) >= 0 and coalesce("branches"."quota_non_current_time", 0) >= 0)
);
--> statement-breakpoint
CREATE TABLE "invites" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"role" text DEFAULT 'tester' NOT NULL,
	"approved" boolean NOT NULL,
	"expires_at" timestamp with time zone,
	"seats" integer,
	"uses" integer DEFAULT 0 NOT NULL,
	"one_time" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invites_seats" CHECK ("invites"."seats" is null or "invites"."seats" > 0),
	CONSTRAINT "invites_uses" CHECK ("invites"."uses" >= 0 and ("invites"."seats" is null or "invites"."uses" <= "invites"."seats")),
	CONSTRAINT "invites_role" CHECK ("invites"."role" in ('tester', 'developer', 'admin'))
);
--> statement-breakpoint
CREATE TABLE "project_stars" (
	"project_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_stars_project_id_user_id_pk" PRIMARY KEY("project_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "project_users" (
	"project_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"is_owner" boolean DEFAULT false NOT NULL,
	"pending" boolean DEFAULT false NOT NULL,
	"invite_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_users_project_id_user_id_pk" PRIMARY KEY("project_id","user_id"),
	CONSTRAINT "project_users_role" CHECK ("project_users"."role" in ('tester', 'developer', 'admin')),
	CONSTRAINT "project_users_owner_not_pending" CHECK (not ("project_users"."is_owner" and "project_users"."pending"))
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"is_public" boolean DEFAULT false NOT NULL,
	"quota_package_size" bigint,
	"quota_branch_versions_count" integer,
	"quota_branch_versions_time" bigint,
	"quota_branch_versions_non_current_time" bigint,
	"description_markdown" text DEFAULT '' NOT NULL,
	"description_lang" text,
	"description_images" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "projects_quotas_non_negative" CHECK (coalesce("projects"."quota_package_size", 0) >= 0 and coalesce("projects"."quota_branch_versions_count", 0) >= 0 and coalesce("projects"."quota_branch_versions_time", 0) >= 0 and coalesce("projects"."quota_branch_versions_non_current_time", 0) >= 0)
);
--> statement-breakpoint
CREATE TABLE "version_packages" (
	"version_id" text NOT NULL,
	"package_id" text NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "version_packages_version_id_position_pk" PRIMARY KEY("version_id","position")
);
--> statement-breakpoint
CREATE TABLE "versions" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "branch_versions" ADD CONSTRAINT "branch_versions_branch_id_branches_id_fk" FOREIGN KEY ("branch_id") REFERENCES "public"."branches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "branch_versions" ADD CONSTRAINT "branch_versions_version_id_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "branches" ADD CONSTRAINT "branches_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invites" ADD CONSTRAINT "invites_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invites" ADD CONSTRAINT "invites_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_stars" ADD CONSTRAINT "project_stars_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_stars" ADD CONSTRAINT "project_stars_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_users" ADD CONSTRAINT "project_users_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_users" ADD CONSTRAINT "project_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_users" ADD CONSTRAINT "project_users_invite_id_invites_id_fk" FOREIGN KEY ("invite_id") REFERENCES "public"."invites"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "version_packages" ADD CONSTRAINT "version_packages_version_id_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "branch_versions_branch_published" ON "branch_versions" USING btree ("branch_id","published_at");--> statement-breakpoint
CREATE INDEX "branch_versions_version" ON "branch_versions" USING btree ("version_id");--> statement-breakpoint
CREATE UNIQUE INDEX "branches_project_title" ON "branches" USING btree ("project_id","title");--> statement-breakpoint
CREATE UNIQUE INDEX "invites_token_hash" ON "invites" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "invites_project" ON "invites" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "project_stars_user" ON "project_stars" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "project_users_user" ON "project_users" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "project_users_one_owner" ON "project_users" USING btree ("project_id") WHERE "project_users"."is_owner";--> statement-breakpoint
CREATE UNIQUE INDEX "version_packages_version_package" ON "version_packages" USING btree ("version_id","package_id");--> statement-breakpoint
CREATE INDEX "version_packages_package" ON "version_packages" USING btree ("package_id");--> statement-breakpoint
CREATE UNIQUE INDEX "versions_project_title" ON "versions" USING btree ("project_id","title");--> statement-breakpoint
CREATE INDEX "versions_project_created" ON "versions" USING btree ("project_id","created_at");