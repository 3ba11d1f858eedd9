/**
 * Browser mode's engine restart: `crane serve` is killed under an open page and the supervisor
 * `npm start` uses brings it back on the same port and session token. The page must reconnect by
 * itself (no reload: its cookie is still good) and carry on with its project — the engine has the
 * page's project open again, and the page keeps its unsaved settings.
 */
import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient, wsUrl } from '../../engine/server/testing/http.ts';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { superviseServe, type SupervisedServe } from '../../tools/setup/serve-supervisor.ts';

let served: SupervisedServe;
let scratch: string;
const restarts: string[] = [];
const runDataDir = process.env['CRANE_DATA_DIR'];

test.beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'crane-engine-restart-'));
  process.env['CRANE_DATA_DIR'] = join(scratch, 'data');
  served = await superviseServe({ root: ROOT, uiDir: join(ROOT, 'dist', 'renderer'), onRestart: (line) => restarts.push(line) });
});

test.afterAll(async () => {
  await served?.stop();
  if (runDataDir === undefined) delete process.env['CRANE_DATA_DIR'];
  else process.env['CRANE_DATA_DIR'] = runDataDir;
  rmSync(scratch, { recursive: true, force: true });
});

const savedAlpha = (dir: string): unknown => JSON.parse(readFileSync(join(dir, 'project.json'), 'utf8')).settings?.alpha;

test('after crane serve is killed and restarted, the page reconnects by itself with its project and settings', async ({ page }) => {
  test.setTimeout(120_000);
  const projectDir = join(scratch, 'my-project');
  mkdirSync(projectDir);
  const status = page.locator('.app-header .conn');
  const alpha = page.getByRole('slider', { name: /^α/ });

  await page.goto(served.url);
  await expect(status).toContainText('· open');
  await page.getByLabel('Project folder').fill(projectDir);
  await page.getByRole('button', { name: 'Open project' }).click();
  await expect(page.getByText(`Open: ${projectDir}`)).toBeVisible();
  await alpha.fill('0.37');
  await page.getByRole('button', { name: 'Save project' }).click();
  await expect.poll(() => savedAlpha(projectDir)).toBe(0.37);
  await alpha.fill('0.61'); // an edit the user has not saved

  const killed = served.current();
  killed.child.kill('SIGKILL');
  await expect(page.getByRole('alert')).toContainText('Reconnecting by itself');
  await expect.poll(() => served.current() !== killed, { timeout: 60_000 }).toBe(true);
  expect(restarts).toHaveLength(1);

  await expect(page.getByRole('alert')).toHaveCount(0, { timeout: 30_000 });
  await expect(status).toContainText('· open');
  await expect(page.getByText(`Open: ${projectDir}`)).toBeVisible();
  await expect(alpha).toHaveValue('0.61');
  // The restarted engine opened the demo project (or none) at start; the page put its own back.
  const origin = new URL(served.url).origin;
  const { socket, client } = connectClient(wsUrl(origin, new URL(served.url).search), { origin });
  const state = await (await client).call('getProjectState', {});
  socket.close();
  expect(state?.projectDir).toBe(projectDir);
  expect(state?.project.settings.alpha).toBe(0.37);
});
