/**
 * The token ids a tokenizer.json declares, checked before @huggingface/tokenizers sees them.
 *
 *   scanTokenIds(tokenizerJson, label) → { highest }   the token with the largest id
 *   assertHighestBelow(highest, rows, embedding, label)   refuses ids the embedding has no row for
 *
 * Every id of `model.vocab` (an object token → id; Unigram's list numbers its entries) and of
 * `added_tokens` must be a non-negative safe integer, else a CalibrationError naming the file and
 * the token. The scan is proportional to the number of tokens: the library keeps its vocabulary
 * in an array indexed by id, so anything that walks that array (its `get_vocab`) takes as long as
 * the largest id — one token numbered 2³¹ made loading hang.
 */
import { CalibrationError } from './calibration-error.ts';
import type { JsonObject } from './tokenizer-source.ts';

export interface HighestToken {
  readonly id: number;
  readonly content: string;
}

export function scanTokenIds(tokenizerJson: JsonObject, label: string): { readonly highest: HighestToken | undefined } {
  const model = tokenizerJson['model'];
  if (typeof model !== 'object' || model === null) throw new CalibrationError('tokenizer', label, 'has no "model" object');
  let highest: HighestToken | undefined;
  const visit = (id: unknown, content: string, where: string): void => {
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
      throw new CalibrationError('tokenizer', label, `${where} gives token ${JSON.stringify(content)} the id ${JSON.stringify(id)}; token ids must be non-negative integers`);
    }
    if (highest === undefined || id > highest.id) highest = { id, content };
  };
  const vocab = (tokenizerJson['model'] as JsonObject | undefined)?.['vocab'];
  // The library loads an empty or mistyped vocabulary and then encodes every text to nothing
  // (a missing one it refuses itself).
  const size = Array.isArray(vocab) ? vocab.length : typeof vocab === 'object' && vocab !== null ? Object.keys(vocab).length : 0;
  if (vocab !== undefined && size === 0) throw new CalibrationError('tokenizer', label, `model.vocab is ${JSON.stringify(vocab)}: a tokenizer needs a non-empty vocabulary`);
  if (Array.isArray(vocab)) {
    if (vocab.length > 0) highest = { id: vocab.length - 1, content: String((vocab.at(-1) as unknown[] | undefined)?.[0]) };
  } else if (typeof vocab === 'object' && vocab !== null) {
    for (const [content, id] of Object.entries(vocab)) visit(id, content, 'model.vocab');
  }
  const added = tokenizerJson['added_tokens'];
  if (Array.isArray(added)) {
    added.forEach((entry: unknown, i) => {
      const token = (typeof entry === 'object' && entry !== null ? entry : {}) as { id?: unknown; content?: unknown };
      visit(token.id, String(token.content), `added_tokens[${i}]`);
    });
  }
  return { highest };
}

/**
 * Refuses a tokenizer with ids that are not rows of the model's embedding (`rows` of them,
 * `embedding` says whose): the runtime would fail mid-run, an edit would address rows that do
 * not exist.
 */
export function assertHighestBelow(highest: HighestToken | undefined, rows: number, embedding: string, label: string): void {
  if (highest === undefined || highest.id < rows) return;
  throw new CalibrationError('tokenizer', label, `token ${JSON.stringify(highest.content)} has id ${highest.id}, outside ${embedding} (${rows} rows, ids 0…${rows - 1})`);
}
