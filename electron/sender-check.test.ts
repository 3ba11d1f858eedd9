import { describe, expect, it } from 'vitest';
import { ENGINE_PORT_MESSAGE } from '../engine/protocol/message-port-transport.ts';
import { ENGINE_PORT_WINDOW_MESSAGE, isDirectoryPurpose, isNonce } from './ipc-channels.ts';
import { isTrustedSender } from './sender-check.ts';

const ok = { frameUrl: 'crane://app/index.html', isMainFrame: true, isOurWindow: true };

describe('IPC sender check', () => {
  it('accepts the main frame of our window showing our origin', () => {
    expect(isTrustedSender(ok)).toBe(true);
    expect(isTrustedSender({ ...ok, frameUrl: 'crane://app/' })).toBe(true);
  });

  it.each([
    ['a sub-frame', { ...ok, isMainFrame: false }],
    ['another WebContents', { ...ok, isOurWindow: false }],
    ['a destroyed frame', { ...ok, frameUrl: null }],
    ['a web page', { ...ok, frameUrl: 'https://example.com/' }],
    ['a local file', { ...ok, frameUrl: 'file:///tmp/evil.html' }],
    ['a look-alike host', { ...ok, frameUrl: 'crane://app.evil/index.html' }],
    ['another crane host', { ...ok, frameUrl: 'crane://other/index.html' }],
    ['about:blank', { ...ok, frameUrl: 'about:blank' }],
    ['a data: URL', { ...ok, frameUrl: 'data:text/html,<p>x' }],
  ])('refuses %s', (_name, sender) => {
    expect(isTrustedSender(sender)).toBe(false);
  });
});

describe('IPC arguments', () => {
  it('accepts only the known directory purposes', () => {
    for (const kind of ['instruct', 'thinking', 'project', 'export', 'calibration']) expect(isDirectoryPurpose(kind)).toBe(true);
    for (const kind of ['Project', '', 'toString', null, 1, { kind: 'project' }]) expect(isDirectoryPurpose(kind)).toBe(false);
  });

  it('forwards only well-formed port nonces', () => {
    expect(isNonce(crypto.randomUUID())).toBe(true);
    for (const nonce of ['', 'short', 'x'.repeat(65), '<script>alert(1)</script>', 42, null]) expect(isNonce(nonce)).toBe(false);
  });

  it('the preload posts the port under the name the page listens for', () => {
    expect(ENGINE_PORT_WINDOW_MESSAGE).toBe(ENGINE_PORT_MESSAGE);
  });
});
