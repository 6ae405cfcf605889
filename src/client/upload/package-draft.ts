import type { ArchiveTree } from '../../shared/archive/index.ts';

/**
 * What the new package dialog hands to the upload pipeline: the file tree (its entrypoint included),
 * the tags, an optional title (null: the server derives one from the tags) and the package it updates
 * (null: a full upload; otherwise only the chunks the base lacks travel).
 */
export type PackageDraft = {
  tree: ArchiveTree;
  tags: string[];
  title: string | null;
  basePackage: string | null;
};
