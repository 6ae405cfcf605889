import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import sharp from 'sharp';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 19, spec §2's unlisted admin path with 'Optimize images': the page does not exist for visitors
 * and for users who are not instance administrators (the ordinary not-found screen); an administrator
 * starts POST /admin/maintenance/optimize-content-images and follows the job live (the shared watchJobs)
 * to its output, the count of images re-encoded and failed. The real server runs the job.
 */
useDom();
setDefaultTimeout(180_000);
const { act, cleanup, fireEvent, within } = await import('@testing-library/react');
const { openApp, until: untilPasses } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');

let server: TestServer;
let instanceAdmin: TestUser;
let team: Team;

/** One finalized content image of the project, through the REST calls the editor makes. */
async function uploadImage(user: TestUser, projectId: string, width: number, height: number): Promise<void> {
  const bytes = new Uint8Array(await sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } }).jpeg().toBuffer());
  const created = await server.fetch(`/api/projects/${projectId}/content/images`, { method: 'POST', token: user.token, json: { size: bytes.length, width, height, scale: 100 } });
  expect(created.status).toBe(200);
  const { id, uploadInfo } = (await created.json()) as { id: string; uploadInfo: { token: string; uploadUrl: string } };
  const hash = new Bun.CryptoHasher('sha1').update(bytes).digest('hex');
  const part = await fetch(`${uploadInfo.uploadUrl}?token=${encodeURIComponent(uploadInfo.token)}&part=0&hash=${hash}`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
  expect(part.status).toBe(200);
  const finalized = await server.fetch(`/api/projects/${projectId}/content/images/${id}/finalize`, { method: 'PUT', token: user.token, json: { token: uploadInfo.token, parts: [await part.json()] } });
  expect(finalized.status).toBe(200);
}

beforeAll(async () => {
  server = await startTestServer();
  // The first account of an instance is its administrator.
  instanceAdmin = await registerUser(server);
  team = await makeTeam(server);
  await uploadImage(team.owner, team.project.id, 700, 400);
  await uploadImage(team.owner, team.project.id, 300, 200);
}, 60_000);
afterAll(async () => {
  cleanup();
  await server?.stop();
});
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  sessionStorage.clear();
});

const body = () => within(document.body);


const until = (check: () => void, timeout = 30_000) => untilPasses(check, timeout);

const text = (selector: string) => document.querySelector(selector)?.textContent ?? null;

describe("/admin: 'Optimize images'", () => {
  test('visitors and users who are not instance administrators get the ordinary not-found screen', async () => {
    openApp('/admin');
    await body().findByRole('heading', { level: 1, name: 'Page not found' });
    expect(document.body.textContent).not.toContain('Optimize images');
    openApp('/admin', team.owner.token);
    await body().findByRole('heading', { level: 1, name: 'Page not found' });
    expect(document.body.textContent).not.toContain('Optimize images');
    // The server agrees: the route does not exist for them.
    const refused = await server.fetch('/api/admin/maintenance/optimize-content-images', { method: 'POST', token: team.owner.token });
    expect(refused.status).toBe(404);
  });

  test('an administrator starts the job and follows it live to its output', async () => {
    openApp('/admin', instanceAdmin.token);
    await body().findByRole('heading', { level: 1, name: 'Administration' });
    const section = await body().findByRole('region', { name: 'Images' });
    expect(section.textContent).toContain('Encodes every size of every image pasted into descriptions again');
    const button = within(section).getByRole('button', { name: 'Optimize images' }) as HTMLButtonElement;
    expect(button.disabled).toBe(false);

    act(() => fireEvent.click(button));
    // Live: a state from the job stream at once, the button disabled while it runs.
    await until(() => expect(text('.admin_job_state')).not.toBeNull());
    await until(() => expect(text('.admin_job_state')).toBe('Done'));
    expect(document.querySelector('.admin_job')?.getAttribute('data-status')).toBe('succeeded');
    expect(text('.admin_job_output')).toBe('Images optimized: 2. Failed: 0.');
    const log = document.querySelector('pre.job_log');
    expect(log?.getAttribute('role')).toBe('log');
    expect(log?.getAttribute('aria-label')).toBe('Output of the image optimization');
    expect(log?.textContent).toContain('Re-encoding 2 images');
    expect(log?.textContent).toContain('Re-encoded 2 images');
    expect(document.querySelector('.admin_job progress') === null).toBe(true);
    expect((within(section).getByRole('button', { name: 'Optimize images' }) as HTMLButtonElement).disabled).toBe(false);

    // A reload in the same tab shows how the run ended.
    openApp('/admin', instanceAdmin.token);
    await body().findByRole('heading', { level: 1, name: 'Administration' });
    await until(() => expect(text('.admin_job_output')).toBe('Images optimized: 2. Failed: 0.'));
  });

  test('in another language the job speaks it too', async () => {
    const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');
    setLanguage('fr');
    openApp('/admin', instanceAdmin.token);
    const section = await body().findByRole('region', { name: 'Images' });
    act(() => fireEvent.click(within(section).getByRole('button', { name: 'Optimiser les images' })));
    await until(() => expect(text('.admin_job_state')).toBe('Terminé'));
    expect(text('.admin_job_output')).toBe('Images optimisées : 2. Échecs : 0.');
    setLanguage('en');
  });
});
