/**
 * `--enable-thinking on|off`, `--preserve-thinking on|off`, `--tool-call-format xml|json`, shared
 * by `crane score` and `crane analyze`: the variables the chat template reads besides the
 * messages (Nanbeige4.2's template reads all three, Qwen3's hybrid one enable_thinking). A flag
 * left out is not passed, so the template's own default applies; `crane verify` renders with
 * what its analysis was given.
 */
import type { ChatTemplateOptions } from '../calibration/chat-template.ts';
import { UsageError } from './command.ts';
import { flagHelpLine } from './format.ts';

export const CHAT_TEMPLATE_FLAGS = {
  'enable-thinking': { type: 'string' },
  'preserve-thinking': { type: 'string' },
  'tool-call-format': { type: 'string' },
} as const;

type Values = Partial<Record<keyof typeof CHAT_TEMPLATE_FLAGS, string>>;

export function chatTemplateHelp(column: number): string {
  return [
    flagHelpLine('  --enable-thinking on|off', column, "the template's enable_thinking (default: the template's own)"),
    flagHelpLine('  --preserve-thinking on|off', column, "preserve_thinking: off empties earlier turns' reasoning (Nanbeige)"),
    flagHelpLine('  --tool-call-format F', column, 'tool_call_format: xml | json (Nanbeige; default xml)'),
  ].join('\n');
}

/** The options the flags set; undefined when none is given (settings then stay as they were). */
export function chatTemplateOptionsFromFlags(values: Values): ChatTemplateOptions | undefined {
  const options: { -readonly [K in keyof ChatTemplateOptions]: ChatTemplateOptions[K] } = {};
  if (values['enable-thinking'] !== undefined) options.enableThinking = onOff(values['enable-thinking'], '--enable-thinking');
  if (values['preserve-thinking'] !== undefined) options.preserveThinking = onOff(values['preserve-thinking'], '--preserve-thinking');
  const format = values['tool-call-format'];
  if (format !== undefined) {
    if (format !== 'xml' && format !== 'json') throw new UsageError(`--tool-call-format must be xml or json, got "${format}"`);
    options.toolCallFormat = format;
  }
  return Object.keys(options).length === 0 ? undefined : options;
}

function onOff(value: string, flag: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError(`${flag} must be on or off, got "${value}"`);
}
