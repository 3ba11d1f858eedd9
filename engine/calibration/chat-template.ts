/**
 * Rendering chats with a checkpoint's Jinja chat template (@huggingface/jinja).
 *
 * API:
 *   `ChatTemplate.fromTokenizer(tokenizer, {name?, forTools?})` — template from chat_template.jinja
 *     if the checkpoint has one, else tokenizer_config.json `chat_template` (a string, or a list of
 *     {name, template}: `name`, else "tool_use" when rendering tools and one exists, else "default").
 *   `new ChatTemplate(source, label, specialTokens?, limits?)`, `readBuiltinChatTemplate()` (ours, in assets/).
 *   `template.render(messages, {tools?, addGenerationPrompt?, enableThinking?, preserveThinking?, toolCallFormat?, extra?})` → text.
 *   `NANBEIGE_STYLE_TEMPLATE_PATH`: our Nanbeige4.2-style template (assets/templates/nanbeige-style.jinja).
 * The template options (ChatTemplateOptions: enable_thinking, Nanbeige's preserve_thinking and
 * tool_call_format) are passed only when set, so templates can tell "not given" (`is defined`)
 * from false and apply their own default.
 * The special tokens of tokenizer_config.json (bos_token, eos_token, …) are in scope, as with
 * transformers' apply_chat_template, next to the jinja globals (`raise_exception(msg)`,
 * `strftime_now`, `range`); any render failure becomes a CalibrationError naming the template.
 * Rendering is bounded in time and size (bounded-render.ts): templates ship with checkpoints and
 * may loop without end.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Template } from '@huggingface/jinja';
import { DEFAULT_RENDER_LIMITS, renderBounded, TemplateLimitError, type RenderLimits } from './bounded-render.ts';
import { CalibrationError } from './calibration-error.ts';
import type { ChatTemplateOptions } from '../protocol/settings-schemas.ts';
import type { ChatMessage, Tool } from './chat-schema.ts';
import type { ModelTokenizer } from './tokenizer.ts';

export type { ChatTemplateOptions };

export const BUILTIN_TEMPLATE_PATH = fileURLToPath(new URL('../../assets/templates/chatml-tools.jinja', import.meta.url));
export const NANBEIGE_STYLE_TEMPLATE_PATH = fileURLToPath(new URL('../../assets/templates/nanbeige-style.jinja', import.meta.url));

/** The template variable each option sets. */
const OPTION_VARIABLES = { enableThinking: 'enable_thinking', preserveThinking: 'preserve_thinking', toolCallFormat: 'tool_call_format' } as const;

export async function readBuiltinChatTemplate(): Promise<string> {
  return readFile(BUILTIN_TEMPLATE_PATH, 'utf8');
}

/** Only the template options of a larger options object (what render passes to the template). */
export function templateOptionsOf(options: ChatTemplateOptions): ChatTemplateOptions {
  const { enableThinking, preserveThinking, toolCallFormat } = options;
  return { enableThinking, preserveThinking, toolCallFormat };
}

export interface RenderOptions extends ChatTemplateOptions {
  readonly tools?: readonly Tool[] | undefined;
  readonly addGenerationPrompt?: boolean;
  /** Further template variables (e.g. a date some templates print). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export class ChatTemplate {
  private readonly compiled: Template;

  constructor(
    readonly source: string,
    /** Where the template came from, for error messages. */
    readonly label: string,
    private readonly specialTokens: Readonly<Record<string, string>> = {},
    private readonly limits: RenderLimits = DEFAULT_RENDER_LIMITS,
  ) {
    try {
      this.compiled = new Template(source);
    } catch (error) {
      throw new CalibrationError('template', label, `does not parse (${(error as Error).message})`);
    }
  }

  static fromTokenizer(tokenizer: ModelTokenizer, options: { name?: string; forTools?: boolean } = {}): ChatTemplate {
    const tokens: Record<string, string> = {};
    for (const name of ['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const) {
      const content = tokenizer.configToken(name);
      if (content !== undefined) tokens[name] = content;
    }
    const { chatTemplateFile, labels } = tokenizer.source;
    if (chatTemplateFile !== undefined && options.name === undefined) {
      return new ChatTemplate(chatTemplateFile, labels.chatTemplateFile, tokens);
    }
    const label = `${labels.tokenizerConfig} chat_template`;
    const source = pickTemplate(tokenizer.config['chat_template'], label, options);
    return new ChatTemplate(source, label, tokens);
  }

  render(messages: readonly ChatMessage[], options: RenderOptions = {}): string {
    const context: Record<string, unknown> = {
      ...this.specialTokens,
      ...options.extra,
      messages,
      add_generation_prompt: options.addGenerationPrompt ?? false,
    };
    if (options.tools !== undefined && options.tools.length > 0) context['tools'] = options.tools;
    for (const [option, variable] of Object.entries(OPTION_VARIABLES) as [keyof ChatTemplateOptions, string][]) {
      if (options[option] !== undefined) context[variable] = options[option];
    }
    try {
      return renderBounded(this.compiled, context, this.limits);
    } catch (error) {
      if (error instanceof TemplateLimitError) {
        throw new CalibrationError('template', this.label, `was stopped while rendering: ${error.message}; a chat template must render a chat in bounded time and size`);
      }
      throw new CalibrationError('template', this.label, `failed to render (${(error as Error).message})`);
    }
  }
}

function pickTemplate(value: unknown, label: string, options: { name?: string; forTools?: boolean }): string {
  if (typeof value === 'string') {
    if (options.name !== undefined && options.name !== 'default') {
      throw new CalibrationError('template', label, `is a single template; there is no template named "${options.name}"`);
    }
    return value;
  }
  if (Array.isArray(value)) {
    const named = new Map<string, string>();
    for (const entry of value as { name?: unknown; template?: unknown }[]) {
      if (typeof entry?.name === 'string' && typeof entry.template === 'string') named.set(entry.name, entry.template);
    }
    const wanted = options.name ?? (options.forTools === true && named.has('tool_use') ? 'tool_use' : 'default');
    const found = named.get(wanted);
    if (found === undefined) {
      throw new CalibrationError('template', label, `has no template named "${wanted}" (has: ${[...named.keys()].join(', ') || 'none'})`);
    }
    return found;
  }
  throw new CalibrationError('template', label, value === undefined ? 'is missing: the checkpoint has no chat template' : 'is neither a string nor a list of named templates');
}
