import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../../engine/io/testing/fixtures.ts';
import { isAppUrl } from './app-origin.ts';
import { resolveAppPath, respondToAppRequest } from './app-protocol.ts';
import { CONTENT_SECURITY_POLICY } from './content-security.ts';

/** A renderer build next to a secret it must never serve. */
async function withBuild(body: (root: string, outside: string) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const root = join(dir, 'renderer');
    await mkdir(join(root, 'assets'), { recursive: true });
    await writeFile(join(root, 'index.html'), '<!doctype html><title>x</title>');
    await writeFile(join(root, 'assets', 'app.js'), 'console.log(1)');
    await writeFile(join(dir, 'secret.txt'), 'secret');
    await symlink(join(dir, 'secret.txt'), join(root, 'assets', 'link.txt'));
    await body(root, dir);
  });
}

describe('crane://app protocol', () => {
  it('serves files of the build, index.html for /', async () => {
    await withBuild(async (root) => {
      expect(await resolveAppPath(root, 'crane://app/')).toBe(join(root, 'index.html'));
      expect(await resolveAppPath(root, 'crane://app/assets/app.js?v=1#x')).toBe(join(root, 'assets', 'app.js'));
      const response = await respondToAppRequest(root, 'crane://app/assets/app.js');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(await response.text()).toBe('console.log(1)');
    });
  });

  it.each([
    'crane://app/../secret.txt',
    'crane://app/%2e%2e/secret.txt',
    'crane://app/assets/%2E%2E%2F..%2Fsecret.txt',
    'crane://app/assets/..%5C..%5Csecret.txt',
    'crane://app/assets/link.txt',
    'crane://app/index.html%00.js',
    'crane://app/missing.js',
    'crane://other/index.html',
    'file:///etc/passwd',
    'https://app/index.html',
    'not a url',
  ])('refuses %s', async (url) => {
    await withBuild(async (root) => {
      expect(await resolveAppPath(root, url)).toBeUndefined();
      const response = await respondToAppRequest(root, url);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('secret');
    });
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    await withBuild(async (root) => {
      const head = await respondToAppRequest(root, 'crane://app/index.html', 'HEAD');
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      expect((await respondToAppRequest(root, 'crane://app/index.html', 'POST')).status).toBe(405);
    });
  });

  it('explains a missing build instead of failing', async () => {
    await withTempDir(async (dir) => {
      const response = await respondToAppRequest(join(dir, 'none'), 'crane://app/index.html');
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('npm start');
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    });
  });

  it('recognises only URLs of the app origin', () => {
    expect(isAppUrl('crane://app/index.html')).toBe(true);
    expect(isAppUrl('crane://app')).toBe(true);
    for (const url of ['crane://app.evil/x', 'crane://evil/app', 'crane://user@app/x', 'http://app/', 'file:///app', '', 'crane:app']) {
      expect(isAppUrl(url), url).toBe(false);
    }
  });
});

describe('content security policy', () => {
  const directives = new Map(CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));

  it('denies by default and allows scripts only from the app', () => {
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|wasm-unsafe-eval|\*|http:|https:/);
  });

  it('forbids plugins, frames, base and form targets', () => {
    for (const name of ['object-src', 'frame-src', 'base-uri', 'form-action', 'frame-ancestors']) expect(directives.get(name), name).toBe("'none'");
  });
});
