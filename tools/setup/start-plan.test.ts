import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../../engine/io/testing/fixtures.ts';
import { findDemoPair, planStart, rendererIsStale, type StartFacts } from './start-plan.ts';

const facts: StartFacts = { electronBinary: '/x/electron', platform: 'linux', env: { DISPLAY: ':0' }, forceBrowser: false, demoPair: undefined };

describe('npm start plan', () => {
  it('opens Electron when its binary and a display exist', () => {
    expect(planStart(facts).host).toBe('electron');
    expect(planStart({ ...facts, env: { WAYLAND_DISPLAY: 'wayland-0' } }).host).toBe('electron');
    expect(planStart({ ...facts, platform: 'darwin', env: {} }).host).toBe('electron');
  });

  it('falls back to browser mode and says why', () => {
    expect(planStart({ ...facts, electronBinary: undefined }).notes[0]).toMatch(/No Electron binary/);
    expect(planStart({ ...facts, env: {} }).notes[0]).toMatch(/no display/);
    expect(planStart({ ...facts, forceBrowser: true }).host).toBe('browser');
  });

  it('says whether the demo pair is opened', () => {
    expect(planStart(facts).notes.at(-1)).toMatch(/not built yet: opening with no pair/);
    expect(planStart({ ...facts, demoPair: { instruct: '/d/i', thinking: '/d/t' } }).notes.at(-1)).toBe('Opening the demo pair: /d/i + /d/t.');
  });

  it('finds the demo pair only when both checkpoints exist', async () => {
    await withTempDir(async (root) => {
      expect(findDemoPair(root)).toBeUndefined();
      for (const side of ['instruct', 'thinking']) {
        expect(findDemoPair(root)).toBeUndefined();
        await mkdir(join(root, 'assets', 'demo', side), { recursive: true });
        await writeFile(join(root, 'assets', 'demo', side, 'config.json'), '{}');
      }
      expect(findDemoPair(root)).toEqual({ instruct: join(root, 'assets/demo/instruct'), thinking: join(root, 'assets/demo/thinking') });
    });
  });

  it('rebuilds the renderer when the build is missing or older than a source', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'renderer', 'src'), { recursive: true });
      const source = join(root, 'renderer', 'src', 'main.tsx');
      await writeFile(source, 'x');
      expect(rendererIsStale(root)).toBe(true);
      await mkdir(join(root, 'dist', 'renderer'), { recursive: true });
      const built = join(root, 'dist', 'renderer', 'index.html');
      await writeFile(built, 'x');
      await utimes(source, new Date(1_000_000), new Date(1_000_000));
      expect(rendererIsStale(root)).toBe(false);
      await utimes(source, new Date(), new Date(Date.now() + 60_000));
      expect(rendererIsStale(root)).toBe(true);
    });
  });
});
