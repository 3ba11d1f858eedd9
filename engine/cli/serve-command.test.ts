import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { parseServeArgs } from './serve-command.ts';
import { runCli } from './testing.ts';

const CRANE = fileURLToPath(new URL('../../bin/crane.mjs', import.meta.url));

describe('crane serve', () => {
  it('binds 127.0.0.1 on a free port by default', () => {
    expect(parseServeArgs([])).toMatchObject({ host: '127.0.0.1', port: 0 });
    expect(parseServeArgs(['--port', '8123', '--ui', '/x/ui'])).toEqual({ host: '127.0.0.1', port: 8123, uiDir: '/x/ui' });
  });

  it('takes the session token of a restarted server from CRANE_SESSION_TOKEN, never from a flag', async () => {
    const token = 'a'.repeat(43);
    expect(parseServeArgs([], { CRANE_SESSION_TOKEN: token }).token).toBe(token);
    expect(parseServeArgs([], {}).token).toBeUndefined();
    expect(() => parseServeArgs([], { CRANE_SESSION_TOKEN: 'short' })).toThrow(/CRANE_SESSION_TOKEN must be at least 43/);
    expect((await runCli(['serve', '--token', token])).code).toBe(2);
  });

  it.each([['--port', 'abc'], ['--port', '70000'], ['--host', ''], ['extra']])('refuses %j with exit code 2', async (...args) => {
    expect((await runCli(['serve', ...args])).code).toBe(2);
  });

  it('prints a URL with the token that serves the UI, and stops on SIGTERM', async () => {
    await withTempDir(async (dir) => {
      // A throw-away data folder: the demo project must not land in the user's own.
      const env = { ...process.env, CRANE_DATA_DIR: join(dir, 'data') };
      const child = spawn(process.execPath, [CRANE, 'serve', '--ui', join(dir, 'no-build')], { stdio: ['ignore', 'pipe', 'pipe'], env });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      // Start-up loads the engine through tsx: seconds on a quiet machine, far more under load.
      await expect.poll(() => out, { timeout: 90_000 }).toMatch(/Open: (\S+)/);
      const url = /Open: (\S+)/.exec(out)?.[1] ?? '';
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
      const page = await fetch(url);
      expect(await page.text()).toContain('UI has not been built yet');
      expect((await fetch(url.replace(/\?token=.*/, ''))).status).toBe(401);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    });
  }, 120_000);
});
