/**
 * One fixture for the specs that start from an analysed demo project: before each test a fresh
 * copy of the analysed data folder (analysed-demo.ts) and a `crane serve` on it; after each test
 * both go, so no test sees another's autosaved settings or measured results.
 */
import { test } from '@playwright/test';
import { rmSync } from 'node:fs';
import type { ServeProcess } from '../../tools/setup/serve-process.ts';
import { analysedDemoDataDir } from './analysed-demo.ts';
import { serveDataDir } from './studio-server.ts';

export interface AnalysedDemoStudio {
  readonly server: ServeProcess;
  readonly dataDir: string;
}

/** Registers the per-test hooks in the calling spec file; the returned object is filled in before each test. */
export function useAnalysedDemoStudio(testTimeoutMs: number): AnalysedDemoStudio {
  const studio: { server?: ServeProcess; dataDir?: string } = {};
  test.beforeEach(async () => {
    test.setTimeout(testTimeoutMs);
    studio.dataDir = await analysedDemoDataDir();
    studio.server = await serveDataDir(studio.dataDir);
  });
  test.afterEach(async () => {
    await studio.server?.stop();
    if (studio.dataDir !== undefined) rmSync(studio.dataDir, { recursive: true, force: true });
    studio.server = undefined;
    studio.dataDir = undefined;
  });
  return {
    get server() {
      if (studio.server === undefined) throw new Error('the analysed demo studio exists only inside a test');
      return studio.server;
    },
    get dataDir() {
      if (studio.dataDir === undefined) throw new Error('the analysed demo studio exists only inside a test');
      return studio.dataDir;
    },
  };
}
