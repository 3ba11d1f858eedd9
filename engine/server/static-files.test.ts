import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { resolveStaticPath } from './static-files.ts';

describe('resolveStaticPath', () => {
  it('resolves files and directory index pages inside the root, and nothing outside', async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, 'ui');
      await mkdir(join(root, 'assets'), { recursive: true });
      await writeFile(join(root, 'index.html'), '');
      await writeFile(join(root, 'assets', 'a b.js'), '');
      await writeFile(join(dir, 'secret'), '');
      await symlink(join(dir, 'secret'), join(root, 'escape'));
      expect(await resolveStaticPath(root, '/')).toBe(join(root, 'index.html'));
      expect(await resolveStaticPath(root, '/assets/a%20b.js')).toBe(join(root, 'assets', 'a b.js'));
      for (const path of ['/../secret', '/%2e%2e/secret', '/assets/..%2f..%2fsecret', '/escape', '/%zz', '/a%00b', '/..\\secret']) {
        expect(await resolveStaticPath(root, path), path).toBeUndefined();
      }
    });
  });
});
