import type { ProjectMedia } from '../../src/shared/schemas/project-media.ts';
import type { TestUser } from './accounts.ts';
import { uploadContentImage } from './content-images.ts';
import { photoLike } from './images.ts';
import { uploadPackage } from './packages.ts';
import { createProject, grantPrivilege, type TestProject } from './projects.ts';
import type { TestServer } from './server.ts';

/**
 * Store pages with pictures (issue 19), for the store e2e tests and bench:store: a public project with
 * a public branch whose current version holds packages for the given platforms, and a cover and
 * screenshots uploaded through the paste flow's REST calls (photo-like images made with sharp).
 */

async function call<T = { id: string }>(server: TestServer, user: TestUser, method: string, path: string, json?: unknown): Promise<T> {
  const response = await server.fetch(path, { method, token: user.token, json });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export type ListedProject = { project: TestProject; branch: string; version: string; packages: Record<string, string> };

/** Package files per platform: a web page for os:web, a start script for the others. */
function filesFor(platform: string): Record<string, string> {
  if (platform === 'web') return { 'index.html': '<!doctype html><title>Game</title><canvas></canvas>' };
  return { 'game.sh': `#!/bin/sh\necho ${platform}\n`, 'data/level1.txt': 'x'.repeat(2000) };
}

/**
 * A public project titled `title` with a public branch 'main' on which version 1.0 is published, holding
 * one package per platform ('linux', 'windows', 'web', …; titled '<Platform> build'), and its description.
 */
export async function listedProject(server: TestServer, owner: TestUser, title: string, options: { platforms?: string[]; description?: string } = {}): Promise<ListedProject> {
  await grantPrivilege(server, owner, 'store_publish');
  const project = await createProject(server, owner, title);
  const base = `/api/projects/${project.id}`;
  await call(server, owner, 'PATCH', base, { isPublic: true });
  if (options.description) await call(server, owner, 'PUT', `${base}/description`, { markdown: options.description, lang: 'en', images: [] });
  const packages: Record<string, string> = {};
  for (const platform of options.platforms ?? []) {
    const tags = platform === 'linux' ? ['os:linux', 'arch:x86'] : [`os:${platform}`];
    const title = `${platform[0]!.toUpperCase()}${platform.slice(1)} build`;
    packages[platform] = (await uploadPackage(server, owner, project.id, filesFor(platform), { tags, title, entrypoint: platform === 'web' ? ['index.html'] : ['game.sh'] })).id;
  }
  const branch = await call(server, owner, 'POST', `${base}/branches`, { title: 'main' });
  await call(server, owner, 'PATCH', `${base}/branches/${branch.id}`, { isPublic: true });
  const version = await call(server, owner, 'POST', `${base}/versions`, { title: '1.0', description: 'First release.', packages: Object.values(packages) });
  await call(server, owner, 'POST', `${base}/branches/${branch.id}/versions/${version.id}`);
  return { project, branch: branch.id, version: version.id, packages };
}

/** Uploads a cover (width×height) and `screenshots` pictures (1920×1080 unless told) and sets them as the project's media. */
export async function setStoreMedia(
  server: TestServer,
  owner: TestUser,
  projectId: string,
  options: { cover?: { width: number; height: number }; screenshots?: number; screenshotSize?: { width: number; height: number }; seed?: number } = {},
): Promise<ProjectMedia> {
  const seed = options.seed ?? 1;
  const cover = options.cover ? await uploadPhoto(server, owner, projectId, options.cover.width, options.cover.height, seed) : null;
  const size = options.screenshotSize ?? { width: 1920, height: 1080 };
  const shots: string[] = [];
  for (let i = 0; i < (options.screenshots ?? 0); i++) shots.push(await uploadPhoto(server, owner, projectId, size.width, size.height, seed + 100 + i));
  return call<ProjectMedia>(server, owner, 'PUT', `/api/projects/${projectId}/media`, { cover, screenshots: shots });
}

async function uploadPhoto(server: TestServer, owner: TestUser, projectId: string, width: number, height: number, seed: number): Promise<string> {
  const bytes = await photoLike(width, height, { seed, format: 'jpeg' });
  return (await uploadContentImage(server, owner, projectId, bytes, width, height)).id;
}
