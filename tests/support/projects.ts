import { projectStars, projectUsers, userPrivileges } from '../../src/server/db/schema/index.ts';
import type { ProjectRole } from '../../src/shared/schemas/projects.ts';
import type { PrivilegeName } from '../../src/shared/schemas/privileges.ts';
import { registerUser, type TestUser } from './accounts.ts';
import type { TestServer } from './server.ts';

export type TestProject = { id: string; title: string };

/** Creates a project through the API as `owner` (who needs create_project, the default privilege). */
export async function createProject(server: TestServer, owner: TestUser, title = `Project ${Math.random().toString(36).slice(2, 8)}`): Promise<TestProject> {
  const response = await server.fetch('/api/projects', { method: 'POST', token: owner.token, json: { title } });
  if (response.status !== 200) throw new Error(`create project: ${response.status} ${await response.text()}`);
  return (await response.json()) as TestProject;
}

/** Creates a version of `packages` through the API as `user` (who needs createVersion). */
export async function createVersion(server: TestServer, user: TestUser, project: TestProject, title: string, packages: string[]): Promise<{ id: string; title: string }> {
  const response = await server.fetch(`/api/projects/${project.id}/versions`, { method: 'POST', token: user.token, json: { title, packages } });
  if (response.status !== 200) throw new Error(`create version: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; title: string };
}

/** Makes a project public through the API, granting the owner store_publish first (the toggle needs it). */
export async function makePublic(server: TestServer, project: TestProject, owner: TestUser): Promise<void> {
  await grantPrivilege(server, owner, 'store_publish');
  const response = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } });
  if (response.status !== 200) throw new Error(`make public: ${response.status} ${await response.text()}`);
}

/** Adds a member directly (invites have their own tests); pending members came through an admin-approval invite. */
export async function addMember(server: TestServer, project: TestProject, user: TestUser, role: ProjectRole, options: { pending?: boolean } = {}): Promise<void> {
  await server.deps.db.insert(projectUsers).values({ projectId: project.id, userId: user.id, role, pending: options.pending ?? false });
}

export async function addStar(server: TestServer, project: TestProject, user: TestUser): Promise<void> {
  await server.deps.db.insert(projectStars).values({ projectId: project.id, userId: user.id }).onConflictDoNothing();
}

export async function grantPrivilege(server: TestServer, user: TestUser, privilege: PrivilegeName): Promise<void> {
  await server.deps.db.insert(userPrivileges).values({ userId: user.id, privilege }).onConflictDoNothing();
}

/** A fresh API token of the user (acts as the user). */
export async function createApiToken(server: TestServer, user: TestUser): Promise<string> {
  const response = await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: {} });
  return ((await response.json()) as { token: string }).token;
}

export type Team = { project: TestProject; owner: TestUser; admin: TestUser; developer: TestUser; tester: TestUser; outsider: TestUser };

/** A project with one member of each role and an outsider, all registered through the API. */
export async function makeTeam(server: TestServer, ownerName?: string): Promise<Team> {
  const owner = await registerUser(server, ownerName);
  const project = await createProject(server, owner);
  const [admin, developer, tester, outsider] = await Promise.all([registerUser(server), registerUser(server), registerUser(server), registerUser(server)]);
  await addMember(server, project, admin!, 'admin');
  await addMember(server, project, developer!, 'developer');
  await addMember(server, project, tester!, 'tester');
  return { project, owner, admin: admin!, developer: developer!, tester: tester!, outsider: outsider! };
}
