CREATE TABLE "external_auth_flows" (
	"id" text PRIMARY KEY NOT NULL,
	"stage" text NOT NULL,
	"token_hash" text NOT NULL,
	"provider" text NOT NULL,
	"intent" text NOT NULL,
	"user_id" text,
	"redirect_uri" text,
	"sealed_state" text,
	"identity" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "external_auth_flows" ADD CONSTRAINT "external_auth_flows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "external_auth_flows_token_hash" ON "external_auth_flows" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "external_auth_flows_expires" ON "external_auth_flows" USING btree ("expires_at");--> statement-breakpoint
-- Every sign-in writes its credential (last use; a provider's current title and picture), which made
-- 0004's trigger drop every cached store page. Only what a store page shows notifies now: a public
-- credential coming, going, or changing, and the public flag itself.
DROP TRIGGER "credentials_store_changed" ON "credentials";--> statement-breakpoint
CREATE TRIGGER "credentials_store_changed_insert" AFTER INSERT ON "credentials" FOR EACH ROW WHEN (NEW.is_public) EXECUTE FUNCTION cartridge_notify_store_changed('all');--> statement-breakpoint
CREATE TRIGGER "credentials_store_changed_delete" AFTER DELETE ON "credentials" FOR EACH ROW WHEN (OLD.is_public) EXECUTE FUNCTION cartridge_notify_store_changed('all');--> statement-breakpoint
CREATE TRIGGER "credentials_store_changed_update" AFTER UPDATE ON "credentials" FOR EACH ROW WHEN ((OLD.is_public OR NEW.is_public) AND (OLD.is_public, OLD.user_id, OLD.provider, OLD.name, OLD.title, OLD.profile_url, OLD.profile_picture_url) IS DISTINCT FROM (NEW.is_public, NEW.user_id, NEW.provider, NEW.name, NEW.title, NEW.profile_url, NEW.profile_picture_url)) EXECUTE FUNCTION cartridge_notify_store_changed('all');
