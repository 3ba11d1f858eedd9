/**
 * A checkpoint's tokenizer, checked against the checkpoint's own embedding.
 *
 *   await loadCheckpointTokenizer(checkpoint | dir) → ModelTokenizer
 *
 * Every token id must be a row of `model.embed_tokens.weight` and below config.json's vocab_size
 * (the runtime reads the embedding as [vocab_size, hidden]; an edit blends rows by id). A
 * tokenizer that numbers a token past them is refused here, at load, with one line naming
 * tokenizer.json and the token — not later as a RangeError from inside a forward pass or an edit.
 * Only headers are looked at; no weight is read.
 *
 *   await editTokenRows(instruct, onMissing) → TokenRows   the think and protected rows of an edit
 *
 * editTokenRows reads tokenizer.json's ids (the same checks) without building the tokenizer: an
 * edit encodes no text, and building Qwen3's BPE model cost ≈ 0.7 CPU s of a CRANE export.
 */
import { basename } from 'node:path';
import { CalibrationError } from '../calibration/calibration-error.ts';
import { assertHighestBelow, scanTokenIds } from '../calibration/token-ids.ts';
import { ModelTokenizer } from '../calibration/tokenizer.ts';
import { readTokenizerSource, type TokenizerSource } from '../calibration/tokenizer-source.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { EMBED_NAME, type WeightSource } from '../model/weights.ts';
import type { TokenRows } from '../protocol/settings-schemas.ts';
import { tokenRowsOf } from './edit-method.ts';

type CheckpointHeaders = Pick<WeightSource, 'dir' | 'config' | 'tensors'>;

export async function loadCheckpointTokenizer(checkpoint: CheckpointHeaders | string): Promise<ModelTokenizer> {
  return withHeaders(checkpoint, async (headers) => {
    const tokenizer = await ModelTokenizer.load(headers.dir);
    const { rows, embedding } = embeddingRows(headers);
    if (rows !== undefined) tokenizer.assertIdsBelow(rows, embedding);
    return tokenizer;
  });
}

async function withHeaders<T>(checkpoint: CheckpointHeaders | string, body: (headers: CheckpointHeaders) => Promise<T>): Promise<T> {
  if (typeof checkpoint !== 'string') return body(checkpoint);
  const opened = await Checkpoint.open(checkpoint);
  try {
    return await body(opened);
  } finally {
    await opened.close();
  }
}

/** The fewest rows any consumer of token ids has: the embedding tensor's and config.json's vocab_size. */
function embeddingRows(checkpoint: CheckpointHeaders): { rows: number | undefined; embedding: string } {
  const tensorRows = checkpoint.tensors.get(EMBED_NAME)?.shape[0];
  const vocabSize = checkpoint.config['vocab_size'];
  const configRows = typeof vocabSize === 'number' && Number.isSafeInteger(vocabSize) && vocabSize > 0 ? vocabSize : undefined;
  if (tensorRows !== undefined && (configRows === undefined || tensorRows <= configRows)) {
    return { rows: tensorRows, embedding: `the embedding ${EMBED_NAME} of ${checkpoint.dir}` };
  }
  return { rows: configRows, embedding: `vocab_size of ${checkpoint.dir}/config.json` };
}

/**
 * The rows an edit of `instruct` treats specially (think pair, protected added tokens). A folder
 * with no tokenizer.json (weights only) can still be edited, without row rules, and `onMissing`
 * says so. A tokenizer that is there but unusable is refused: editing on would move the tool-call
 * rows of lm_head that the user believes protected.
 */
export async function editTokenRows(instruct: string, onMissing: (message: string) => void): Promise<TokenRows> {
  let source: TokenizerSource;
  try {
    source = await readTokenizerSource(instruct);
  } catch (error) {
    if (!(error instanceof CalibrationError && error.code === 'not-found' && basename(error.where) === 'tokenizer.json')) throw error;
    onMissing(`${instruct} has no tokenizer.json: embedding and lm_head rows get no think/protected rules`);
    return { think: [], special: [] };
  }
  const label = source.labels.tokenizerJson;
  const { highest } = scanTokenIds(source.tokenizerJson, label);
  await withHeaders(instruct, async (headers) => {
    const { rows, embedding } = embeddingRows(headers);
    if (rows !== undefined) assertHighestBelow(highest, rows, embedding, label);
  });
  return tokenRowsOf(source.tokenizerJson);
}
