CREATE TABLE "deploy_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"title" text NOT NULL,
	"provider" text NOT NULL,
	"sealed_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deploy_sites" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"credential_id" text NOT NULL,
	"provider" text NOT NULL,
	"site" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deploy_credentials" ADD CONSTRAINT "deploy_credentials_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_sites" ADD CONSTRAINT "deploy_sites_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_sites" ADD CONSTRAINT "deploy_sites_credential_id_deploy_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."deploy_credentials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_sites" ADD CONSTRAINT "deploy_sites_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deploy_credentials_user" ON "deploy_credentials" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "deploy_sites_project_site" ON "deploy_sites" USING btree ("project_id","provider","site");--> statement-breakpoint
CREATE INDEX "deploy_sites_credential" ON "deploy_sites" USING btree ("credential_id");