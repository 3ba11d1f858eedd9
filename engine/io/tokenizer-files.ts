/**
 * The parts of a checkpoint's tokenizer files that decide whether two checkpoints speak the same
 * token language: the vocabulary, the added (special) tokens with their ids, the chat template.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import type { Checkpoint } from './checkpoint.ts';

export interface TokenizerSummary {
  /** SHA-256 of tokenizer.json's bytes (equal files have equal models); undefined where vocabHash is. */
  readonly fileHash: string | undefined;
  /**
   * SHA-256 of the tokenizer model (vocab, merges) in canonical JSON, computed on the first call:
   * ≈1 CPU s for a 151,936-token vocabulary, which a pair with byte-identical tokenizer.json
   * files (`fileHash`) never needs. undefined without tokenizer.json or without its "model".
   */
  vocabHash(): string | undefined;
  readonly vocabSize: number | undefined;
  /** Added tokens: content → id, with whether the tokenizer marks them special. */
  readonly addedTokens: ReadonlyMap<string, { id: number; special: boolean }>;
  readonly chatTemplate: string | undefined;
}

/**
 * `like`: another checkpoint's summary (the pair's other side). When this tokenizer.json is
 * byte-identical to the one `like` was made from (same fileHash), its parse is reused: the
 * 11 MB file of a 151,936-token vocabulary is parsed once per pair, not twice (≈0.5 CPU s each).
 */
export async function summarizeTokenizer(checkpoint: Checkpoint, like?: TokenizerSummary): Promise<TokenizerSummary> {
  const tokenizerText = await checkpoint.readSideFile('tokenizer.json');
  if (like?.fileHash !== undefined && tokenizerText !== undefined && sha256(tokenizerText) === like.fileHash) {
    return { ...like, chatTemplate: await readChatTemplate(checkpoint) };
  }
  const tokenizer = tokenizerText === undefined ? undefined : parseJson(join(checkpoint.dir, 'tokenizer.json'), tokenizerText);
  const model = tokenizer?.['model'] as { vocab?: Record<string, number> } | undefined;
  const addedTokens = new Map<string, { id: number; special: boolean }>();
  const added = tokenizer?.['added_tokens'];
  if (Array.isArray(added)) {
    for (const token of added as { content?: unknown; id?: unknown; special?: unknown }[]) {
      if (typeof token.content === 'string' && typeof token.id === 'number') {
        addedTokens.set(token.content, { id: token.id, special: token.special === true });
      }
    }
  }
  let vocabHash: string | undefined;
  return {
    fileHash: model === undefined || tokenizerText === undefined ? undefined : sha256(tokenizerText),
    vocabHash: () => {
      if (model !== undefined) vocabHash ??= sha256(canonicalJson(model));
      return vocabHash;
    },
    vocabSize: model?.vocab === undefined ? undefined : Object.keys(model.vocab).length,
    addedTokens,
    chatTemplate: await readChatTemplate(checkpoint),
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function readChatTemplate(checkpoint: Checkpoint): Promise<string | undefined> {
  const standalone = await checkpoint.readSideFile('chat_template.jinja');
  if (standalone !== undefined) return standalone;
  const configText = await checkpoint.readSideFile('tokenizer_config.json');
  if (configText === undefined) return undefined;
  const template = parseJson(join(checkpoint.dir, 'tokenizer_config.json'), configText)['chat_template'];
  if (typeof template === 'string') return template;
  // Some tokenizers ship a list of named templates; the "default" one is what renders chats.
  if (Array.isArray(template)) {
    const named = (template as { name?: unknown; template?: unknown }[]).find((t) => t.name === 'default') ?? template[0];
    return typeof named?.template === 'string' ? named.template : undefined;
  }
  return undefined;
}

function parseJson(path: string, text: string): Record<string, unknown> {
  try {
    const json: unknown = JSON.parse(text);
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch (error) {
    throw new CheckpointError('config', path, `is not valid JSON (${(error as Error).message})`);
  }
  throw new CheckpointError('config', path, 'is not a JSON object');
}

/** JSON with object keys sorted, so equal content hashes equal whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
