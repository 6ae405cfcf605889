-- Pack files (issue 20): chunks are stored many to a blob (packs/{id}); stored_chunks says where each
-- chunk identity (compression, hash, stored size) lives. Chunks stored before have no row and keep their
-- own blob (chunks/raw/..., chunks/zstd/...): nothing is moved.
CREATE TABLE "packs" (
	"id" text PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "stored_chunks" (
	"compression" smallint NOT NULL,
	"hash" text NOT NULL,
	"compressed_size" integer NOT NULL,
	"pack_id" text NOT NULL,
	"offset" bigint NOT NULL,
	"crc32" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stored_chunks_compression_hash_compressed_size_pk" PRIMARY KEY("compression","hash","compressed_size")
);
--> statement-breakpoint
ALTER TABLE "stored_chunks" ADD CONSTRAINT "stored_chunks_pack_id_packs_id_fk" FOREIGN KEY ("pack_id") REFERENCES "public"."packs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stored_chunks_pack" ON "stored_chunks" USING btree ("pack_id");