/**
 * Reading a checkpoint's tokenizer files, from a directory or from contents already in memory.
 *
 * API: `readTokenizerSource(dir)` → `TokenizerSource`; `tokenizerSourceFromContents({...})`.
 * tokenizer.json is required; tokenizer_config.json is optional (older checkpoints lack it, and
 * then nothing is added automatically and there is no chat template); chat_template.jinja, when
 * present, is kept so the chat-template module can prefer it, as recent transformers releases do.
 * Every failure is a CalibrationError naming the file; invalid UTF-8 names the line too.
 */
import { join } from 'node:path';
import { CalibrationError } from './calibration-error.ts';
import { readUtf8File } from './utf8-text.ts';

export type JsonObject = Record<string, unknown>;

export interface TokenizerSource {
  readonly tokenizerJson: JsonObject;
  readonly tokenizerConfig: JsonObject;
  /** Contents of chat_template.jinja, when the checkpoint ships one. */
  readonly chatTemplateFile: string | undefined;
  /** Names used in error messages: paths when read from disk, file names otherwise. */
  readonly labels: { readonly tokenizerJson: string; readonly tokenizerConfig: string; readonly chatTemplateFile: string };
}

export interface TokenizerContents {
  /** tokenizer.json as text or as parsed JSON. */
  readonly tokenizerJson: string | JsonObject;
  readonly tokenizerConfig?: string | JsonObject;
  readonly chatTemplateFile?: string;
}

export function tokenizerSourceFromContents(contents: TokenizerContents): TokenizerSource {
  const labels = { tokenizerJson: 'tokenizer.json', tokenizerConfig: 'tokenizer_config.json', chatTemplateFile: 'chat_template.jinja' };
  return {
    tokenizerJson: asObject(labels.tokenizerJson, contents.tokenizerJson),
    tokenizerConfig: contents.tokenizerConfig === undefined ? {} : asObject(labels.tokenizerConfig, contents.tokenizerConfig),
    chatTemplateFile: contents.chatTemplateFile,
    labels,
  };
}

export async function readTokenizerSource(dir: string): Promise<TokenizerSource> {
  const labels = {
    tokenizerJson: join(dir, 'tokenizer.json'),
    tokenizerConfig: join(dir, 'tokenizer_config.json'),
    chatTemplateFile: join(dir, 'chat_template.jinja'),
  };
  const tokenizerText = await readOptional(labels.tokenizerJson);
  if (tokenizerText === undefined) {
    throw new CalibrationError('not-found', labels.tokenizerJson, 'missing: the checkpoint has no tokenizer.json (only fast-tokenizer files are supported)');
  }
  const configText = await readOptional(labels.tokenizerConfig);
  return {
    tokenizerJson: asObject(labels.tokenizerJson, tokenizerText),
    tokenizerConfig: configText === undefined ? {} : asObject(labels.tokenizerConfig, configText),
    chatTemplateFile: await readOptional(labels.chatTemplateFile),
    labels,
  };
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readUtf8File(path);
  } catch (error) {
    if (error instanceof CalibrationError && error.code === 'not-found') return undefined;
    throw error;
  }
}

function asObject(label: string, value: string | JsonObject): JsonObject {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new CalibrationError('json', label, `is not valid JSON (${(error as Error).message})`);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CalibrationError('json', label, 'is not a JSON object');
  }
  return parsed as JsonObject;
}
