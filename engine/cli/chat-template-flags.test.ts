import { describe, expect, it } from 'vitest';
import { chatTemplateHelp, chatTemplateOptionsFromFlags } from './chat-template-flags.ts';

describe('chat-template flags', () => {
  it('sets only the options given', () => {
    expect(chatTemplateOptionsFromFlags({})).toBeUndefined();
    expect(chatTemplateOptionsFromFlags({ 'enable-thinking': 'off' })).toEqual({ enableThinking: false });
    expect(chatTemplateOptionsFromFlags({ 'enable-thinking': 'on', 'preserve-thinking': 'off', 'tool-call-format': 'json' }))
      .toEqual({ enableThinking: true, preserveThinking: false, toolCallFormat: 'json' });
  });

  it('refuses other values, naming the flag', () => {
    expect(() => chatTemplateOptionsFromFlags({ 'enable-thinking': 'yes' })).toThrow('--enable-thinking must be on or off, got "yes"');
    expect(() => chatTemplateOptionsFromFlags({ 'preserve-thinking': 'true' })).toThrow('--preserve-thinking must be on or off, got "true"');
    expect(() => chatTemplateOptionsFromFlags({ 'tool-call-format': 'yaml' })).toThrow('--tool-call-format must be xml or json, got "yaml"');
  });

  it('documents the three flags', () => {
    expect(chatTemplateHelp(31).split('\n').map((line) => line.trim().split(' ')[0])).toEqual(['--enable-thinking', '--preserve-thinking', '--tool-call-format']);
  });
});
