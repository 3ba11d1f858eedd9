/**
 * `crane serve` over a given data folder, for specs that bring their own (an analysed demo
 * project, an empty one): the server inherits CRANE_DATA_DIR from this worker's environment.
 */
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { startServeProcess, type ServeProcess } from '../../tools/setup/serve-process.ts';

export async function serveDataDir(dataDir: string): Promise<ServeProcess> {
  process.env['CRANE_DATA_DIR'] = dataDir;
  return startServeProcess({ root: ROOT, uiDir: join(ROOT, 'dist', 'renderer') });
}

/** The demo project's folder inside a data folder (engine/project/demo-project.ts). */
export const demoProjectDir = (dataDir: string): string => join(dataDir, 'projects', 'demo');

/** A full-page screenshot under test-results/<folder>/, to be looked at. */
export const screenshot = (page: Page, folder: string, name: string): Promise<Buffer> =>
  page.screenshot({ path: join(ROOT, 'test-results', folder, `${name}.png`), fullPage: true });
