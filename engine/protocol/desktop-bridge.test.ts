import { describe, expect, it } from 'vitest';
import { isDirectoryPurpose, isNonce } from './desktop-bridge.ts';

describe('desktop bridge argument checks (IPC arguments are untrusted)', () => {
  it('accepts only the known directory purposes', () => {
    for (const kind of ['instruct', 'thinking', 'project', 'export', 'calibration']) expect(isDirectoryPurpose(kind)).toBe(true);
    for (const kind of ['Project', '', 'toString', null, 1, { kind: 'project' }]) expect(isDirectoryPurpose(kind)).toBe(false);
  });

  it('forwards only well-formed port nonces', () => {
    expect(isNonce(crypto.randomUUID())).toBe(true);
    for (const nonce of ['', 'short', 'x'.repeat(65), '<script>alert(1)</script>', 42, null]) expect(isNonce(nonce)).toBe(false);
  });
});
