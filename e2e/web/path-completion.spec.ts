/**
 * Issue 18, "Views researchers expect" — browser mode's path fields complete folder names, in
 * Chromium against `crane serve`: the engine lists folders inside the data folder and the open
 * project's folders (listDirectories), and nothing outside them.
 */
import { expect, test } from '@playwright/test';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { DESKTOP, openStudio, tab } from '../support/studio-page.ts';

test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(5 * 60_000);

test('a path field offers the folders inside the data folder, and none outside the roots', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Pair & project').click();
  const field = page.getByLabel('Project folder');
  const options = page.locator(`datalist#${await field.getAttribute('list')} option`);

  await field.fill(`${studio.dataDir}/pro`);
  await expect(options).toHaveCount(1);
  await expect(options.first()).toHaveAttribute('value', `${studio.dataDir}/projects`);
  await field.fill(`${studio.dataDir}/projects/`);
  await expect(options.first()).toHaveAttribute('value', `${studio.dataDir}/projects/demo`);

  // Outside the data folder and the project's folders, the engine lists nothing.
  await field.fill('/etc/');
  await expect(options).toHaveCount(0);
});
