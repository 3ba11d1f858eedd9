import { describe, expect, it } from 'vitest';
import { isDeveloperShortcut, type KeyInput } from './developer-shortcuts.ts';

const key = (k: string, mods: Partial<KeyInput> = {}): KeyInput => ({ type: 'keyDown', key: k, control: false, meta: false, shift: false, alt: false, ...mods });

describe('developer shortcuts (swallowed in packaged builds)', () => {
  it.each([
    ['F5', key('F5')],
    ['F12', key('F12')],
    ['Ctrl+R', key('r', { control: true })],
    ['Ctrl+Shift+R', key('R', { control: true, shift: true })],
    ['Cmd+R', key('r', { meta: true })],
    ['Ctrl+Shift+I', key('I', { control: true, shift: true })],
    ['Ctrl+Shift+J', key('J', { control: true, shift: true })],
    ['Ctrl+Shift+C', key('C', { control: true, shift: true })],
    ['Cmd+Alt+I', key('i', { meta: true, alt: true })],
  ])('%s is a developer shortcut', (_name, input) => {
    expect(isDeveloperShortcut(input)).toBe(true);
  });

  it.each([
    ['Ctrl+C (copy)', key('c', { control: true })],
    ['Ctrl+Z (undo)', key('z', { control: true })],
    ['Ctrl+Shift+Z (redo)', key('Z', { control: true, shift: true })],
    ['Ctrl+I', key('i', { control: true })],
    ['plain r', key('r')],
    ['Shift+I', key('I', { shift: true })],
    ['a key release of F5', { ...key('F5'), type: 'keyUp' }],
  ])('%s passes to the page', (_name, input) => {
    expect(isDeveloperShortcut(input)).toBe(false);
  });
});
