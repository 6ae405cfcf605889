CREATE TABLE "cloud_machines" (
	"id" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"token_hash" text NOT NULL,
	"revoked" boolean DEFAULT false NOT NULL,
	"capacity" integer DEFAULT 0 NOT NULL,
	"agent_version" text,
	"last_seen_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cloud_machines_capacity" CHECK ("cloud_machines"."capacity" >= 0)
);
--> statement-breakpoint
CREATE TABLE "cloud_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	"package_id" text NOT NULL,
	"branch_id" text,
	"version_id" text,
	"status" text DEFAULT 'waiting' NOT NULL,
	"reason" text,
	"token_hash" text NOT NULL,
	"machine_id" text,
	"offer" text,
	"answer" text,
	"reported_state" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"assigned_at" timestamp with time zone,
	"start_sent_at" timestamp with time zone,
	"offered_at" timestamp with time zone,
	"answered_at" timestamp with time zone,
	"answer_sent_at" timestamp with time zone,
	"playing_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"stop_sent_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	CONSTRAINT "cloud_sessions_status" CHECK ("cloud_sessions"."status" in ('waiting', 'assigned', 'offered', 'answered', 'playing', 'ended', 'errored'))
);
--> statement-breakpoint
ALTER TABLE "cloud_sessions" ADD CONSTRAINT "cloud_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cloud_sessions" ADD CONSTRAINT "cloud_sessions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cloud_sessions" ADD CONSTRAINT "cloud_sessions_package_id_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cloud_sessions" ADD CONSTRAINT "cloud_sessions_branch_id_branches_id_fk" FOREIGN KEY ("branch_id") REFERENCES "public"."branches"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cloud_sessions" ADD CONSTRAINT "cloud_sessions_version_id_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."versions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cloud_sessions" ADD CONSTRAINT "cloud_sessions_machine_id_cloud_machines_id_fk" FOREIGN KEY ("machine_id") REFERENCES "public"."cloud_machines"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cloud_machines_token_hash" ON "cloud_machines" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "cloud_sessions_token_hash" ON "cloud_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "cloud_sessions_one_live_per_user" ON "cloud_sessions" USING btree ("user_id") WHERE status in ('waiting', 'assigned', 'offered', 'answered', 'playing');--> statement-breakpoint
CREATE INDEX "cloud_sessions_waiting" ON "cloud_sessions" USING btree ("created_at") WHERE status = 'waiting';--> statement-breakpoint
CREATE INDEX "cloud_sessions_machine" ON "cloud_sessions" USING btree ("machine_id","status");--> statement-breakpoint
CREATE INDEX "cloud_sessions_ended" ON "cloud_sessions" USING btree ("ended_at");