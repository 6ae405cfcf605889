import { z } from 'zod';
import { recordIdSchema, singleLineText, tokenText } from './text.ts';
import { packageTagsSchema } from '../packages/tags.ts';

export const packageIdSchema = recordIdSchema;
const packageTitleSchema = singleLineText(1, 128);
const packageStatusNames = ['uploading', 'finalized', 'resolving', 'ready', 'errored'] as const;
export type PackageStatusName = (typeof packageStatusNames)[number];

/**
 * The start file as path parts from the package root: no empty part, no '.' or '..', no slash,
 * backslash or NUL inside a part (the archive's own name rules).
 */
const entrypointPartSchema = z
  .string()
  .min(1)
  .max(255)
  .refine((part) => part !== '.' && part !== '..' && !/[/\\\0]/.test(part), 'not a path part');
const entrypointSchema = z.array(entrypointPartSchema).min(1).max(1024).nullable();

/** Largest archive accepted at all (the project's packageSize quota usually caps it lower). */
const maxDeclaredPackageSize = Number.MAX_SAFE_INTEGER;

/** POST .../packages. */
export const createPackageInput = z.object({
  size: z.number().int().min(1).max(maxDeclaredPackageSize),
  title: packageTitleSchema.nullish(),
  tags: packageTagsSchema.default([]),
  entrypoint: entrypointSchema.default(null),
  basePackage: packageIdSchema.nullish(),
});

/** PATCH .../packages/{package}: {title} (null: back to the derived title) or {tags}. */
export const patchPackageInput = z
  .object({ title: packageTitleSchema.nullable().optional(), tags: packageTagsSchema.optional() })
  .refine((input) => input.title !== undefined || input.tags !== undefined);

/** Spec §3 Package upload info. partHashAlgorithm is always sha1 (spec §5). */
export const uploadInfoSchema = z.object({
  token: z.string(),
  uploadUrl: z.string(),
  partSize: z.number(),
  partHashAlgorithm: z.literal('sha1'),
});
export type UploadInfo = z.infer<typeof uploadInfoSchema>;

export const createdPackageSchema = z.object({ id: z.string(), uploadInfo: uploadInfoSchema });
export type CreatedPackage = z.infer<typeof createdPackageSchema>;

/** PUT {uploadUrl}?token&part&hash: the query; the reply is the part descriptor. */
export const partQuerySchema = z.object({
  token: tokenText(),
  part: z.coerce.number().int().min(0).max(1_000_000),
  hash: z.string().regex(/^[0-9a-fA-F]{40}$/),
});
export const partDescriptorSchema = z.object({
  part: z.number().int().min(0).max(1_000_000),
  hash: z.string().regex(/^[0-9a-fA-F]{40}$/),
  size: z.number().int().min(0),
});
export type PartDescriptor = z.infer<typeof partDescriptorSchema>;

/** PUT .../packages/{package}/finalize. */
export const finalizePackageInput = z.object({
  token: tokenText(),
  parts: z.array(partDescriptorSchema).min(1).max(1_000_000),
});

/**
 * Spec §3 Package. size is the sum of the file sizes (null until finalized), storedSize the bytes of
 * its distinct chunks as stored, indexHash the hex SHA-256 of its index (the base hash a patch names).
 * entrypointExecutable, only in GET .../packages/{package}: whether the start file carries the
 * executable bit (null: no start file, not a file of the package, or not ready yet).
 * updated is when it was last touched (finalized, renamed, retagged, or left a deleted version): a
 * package in no version is collected ORPHAN_PACKAGE_DAYS after it.
 */
export const packageSchema = z.object({
  id: z.string(),
  title: z.string(),
  tags: z.array(z.string()),
  entrypoint: z.array(z.string()).nullable(),
  size: z.number().nullable(),
  created: z.string(),
  updated: z.string(),
  status: z.enum(packageStatusNames),
  basePackage: z.string().nullable(),
  storedSize: z.number().nullable(),
  indexHash: z.string().nullable(),
  entrypointExecutable: z.boolean().nullable().optional(),
});
export type Package = z.infer<typeof packageSchema>;

/** A version a package is in, as the project's package list names it. */
const packageVersionRefSchema = z.object({ id: z.string(), title: z.string() });
export type PackageVersionRef = z.infer<typeof packageVersionRefSchema>;

/**
 * GET .../packages: each package with the versions it is in (those the caller may see, newest first);
 * an empty list means it is in none (it may be deleted, and is collected after ORPHAN_PACKAGE_DAYS).
 */
export const projectPackageSchema = packageSchema.extend({ versions: z.array(packageVersionRefSchema) });
export type ProjectPackage = z.infer<typeof projectPackageSchema>;
