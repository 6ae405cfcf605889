-- Issue 27: the serving clock (src/server/domains/cloud-play/serving-clock.ts). Every serving process records
-- it is alive (alive_at); after a gap with none, serving_since moves to now, and the cloud-play sweep does
-- not count the time the whole server was down against machines and sessions.
ALTER TABLE "instance_facts" ADD COLUMN "alive_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "instance_facts" ADD COLUMN "serving_since" timestamp with time zone;