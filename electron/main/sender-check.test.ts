import { describe, expect, it } from 'vitest';
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
