/**
 * Compatibility of an Instruct/Thinking pair: can δ = θ_T − θ_I be formed tensor by tensor, and do
 * both models mean the same thing by every token id? Errors block an edit; warnings are cases
 * CRANE handles by rule (a tensor on one side only is copied, a shape mismatch keeps θ_I).
 */
import { compareBase, type BaseReport } from './base-report.ts';
import { CheckpointError } from './checkpoint-error.ts';
import type { Checkpoint, CheckpointTensor } from './checkpoint.ts';
import { isFloatDType, type DType } from './dtype.ts';
import { countOf } from './finding-text.ts';
import { canonicalJson, summarizeTokenizer, type TokenizerSummary } from './tokenizer-files.ts';
import { isQwen3Next, unknownQwen3NextTensors } from './qwen3-next-names.ts';
import { tokenRowsFromAdded } from '../protocol/protected-tokens.ts';
import { referenceOnlyNote } from '../protocol/reference-only.ts';
import type { TokenRows } from '../protocol/settings-schemas.ts';

export type Severity = 'error' | 'warning' | 'info';

/**
 * The report in one word: 'refused' (an error: no δ can be formed, or ids mean other tokens),
 * 'caveats' (an edit runs, with the warnings' rules applied), 'identical' (one folder twice:
 * δ = 0, an edit changes nothing), 'compatible' (nothing to say).
 */
export type PairVerdict = 'refused' | 'caveats' | 'identical' | 'compatible';

export interface PairFinding {
  readonly severity: Severity;
  readonly code: string;
  readonly message: string;
}

export interface TensorMismatch {
  readonly name: string;
  readonly instruct: string;
  readonly thinking: string;
}

interface DtypeMismatch extends TensorMismatch {
  readonly instruct: DType;
  readonly thinking: DType;
}

export interface PairReport {
  readonly instruct: string;
  readonly thinking: string;
  readonly compatible: boolean;
  readonly verdict: PairVerdict;
  readonly sharedTensors: number;
  readonly onlyInInstruct: readonly string[];
  readonly onlyInThinking: readonly string[];
  readonly shapeMismatches: readonly TensorMismatch[];
  readonly dtypeMismatches: readonly TensorMismatch[];
  readonly findings: readonly PairFinding[];
  /**
   * Instruct's think rows and the lm_head rows an edit keeps at θ_I (its added tokens but the
   * think pair, protocol/protected-tokens.ts), before the user's edits; empty without tokenizer.json.
   */
  readonly tokens: TokenRows;
  /** The Base checkpoint's report, when one was given (methods forming τ = θ_I − θ_B need it). */
  readonly base?: BaseReport;
}

/** Config fields that fix tensor shapes or the forward math: a difference means no δ. */
const STRUCTURAL_FIELDS = [
  'model_type', 'architectures', 'hidden_size', 'num_hidden_layers', 'num_attention_heads',
  'num_key_value_heads', 'head_dim', 'intermediate_size', 'vocab_size', 'tie_word_embeddings',
  'num_experts', 'num_experts_per_tok', 'moe_intermediate_size', 'shared_expert_intermediate_size',
  'hidden_act', 'attention_bias', 'layer_types', 'full_attention_interval', 'decoder_sparse_step',
  'mlp_only_layers', 'num_loops',
];

/** Fields that legitimately differ between siblings and say nothing about compatibility. */
const IGNORED_FIELDS = new Set(['_name_or_path', 'transformers_version', 'torch_dtype', 'dtype', 'use_cache']);

/**
 * Refuses a pair whose report has errors, listing them: analyze, verify and export call this
 * before they write anything.
 */
export async function assertCompatiblePair(instruct: Checkpoint, thinking: Checkpoint): Promise<void> {
  const report = await comparePair(instruct, thinking);
  const errors = report.findings.filter((f) => f.severity === 'error').map((f) => f.message);
  if (errors.length > 0) {
    throw new CheckpointError('config', thinking.dir, `cannot be paired with ${instruct.dir}:\n  ${errors.join('\n  ')}`);
  }
}

export async function comparePair(instruct: Checkpoint, thinking: Checkpoint, base?: Checkpoint): Promise<PairReport> {
  const findings: PairFinding[] = [];
  compareConfigs(instruct.config, thinking.config, findings);
  const tensors = compareTensors(instruct.tensors, thinking.tensors, findings);
  checkReferenceOnly(instruct, thinking, findings);
  const baseReport = base === undefined ? undefined : compareBase(base, { instruct, thinking }, STRUCTURAL_FIELDS, findings);
  const instructTokenizer = await summarizeTokenizer(instruct);
  compareTokenizers(instructTokenizer, await summarizeTokenizer(thinking, instructTokenizer), findings);
  const identical = instruct.dir === thinking.dir;
  if (identical) findings.push({ severity: 'warning', code: 'pair-identical', message: `Instruct and Thinking are the same folder (${instruct.dir}): δ = 0, an edit changes nothing` });
  return {
    instruct: instruct.dir,
    thinking: thinking.dir,
    compatible: !findings.some((f) => f.severity === 'error'),
    verdict: pairVerdict(findings, identical),
    ...tensors,
    findings,
    tokens: tokenRowsFromAdded([...instructTokenizer.addedTokens].map(([content, { id }]) => ({ id, content }))),
    ...(baseReport === undefined ? {} : { base: baseReport }),
  };
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

function pairVerdict(findings: readonly PairFinding[], identical: boolean): PairVerdict {
  if (findings.some((f) => f.severity === 'error')) return 'refused';
  if (identical) return 'identical';
  return findings.some((f) => f.severity === 'warning') ? 'caveats' : 'compatible';
}

function compareConfigs(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>, findings: PairFinding[]): void {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !IGNORED_FIELDS.has(k)).sort();
  // Own keys only: a config without "constructor" must not compare Object's constructor.
  const field = (config: Readonly<Record<string, unknown>>, key: string) => (Object.hasOwn(config, key) ? config[key] : undefined);
  for (const key of keys) {
    const [left, right] = [canonicalJson(field(a, key)), canonicalJson(field(b, key))];
    if (left === right) continue;
    const structural = STRUCTURAL_FIELDS.includes(key);
    findings.push({
      severity: structural ? 'error' : 'warning',
      code: structural ? 'config-structure' : 'config-value',
      message: `config.json "${key}" differs: Instruct ${left ?? 'absent'}, Thinking ${right ?? 'absent'}`,
    });
  }
}

function compareTensors(
  a: ReadonlyMap<string, CheckpointTensor>,
  b: ReadonlyMap<string, CheckpointTensor>,
  findings: PairFinding[],
): Pick<PairReport, 'sharedTensors' | 'onlyInInstruct' | 'onlyInThinking' | 'shapeMismatches' | 'dtypeMismatches'> {
  const onlyInInstruct = [...a.keys()].filter((n) => !b.has(n));
  const onlyInThinking = [...b.keys()].filter((n) => !a.has(n));
  const shapeMismatches: TensorMismatch[] = [];
  const dtypeMismatches: DtypeMismatch[] = [];
  for (const [name, left] of a) {
    const right = b.get(name);
    if (right === undefined) continue;
    if (left.shape.join('x') !== right.shape.join('x')) {
      shapeMismatches.push({ name, instruct: `[${left.shape.join(', ')}]`, thinking: `[${right.shape.join(', ')}]` });
    }
    if (left.dtype !== right.dtype) dtypeMismatches.push({ name, instruct: left.dtype, thinking: right.dtype });
  }
  for (const [side, tensors] of [['Instruct', a], ['Thinking', b]] as const) {
    if (tensors.size === 0) findings.push({ severity: 'error', code: 'tensor-none', message: `the ${side} checkpoint has no tensors: there is nothing to edit` });
  }
  const list = (names: readonly string[]) => `${names.slice(0, 5).join(', ')}${names.length > 5 ? `, … (${names.length} in all)` : ''}`;
  if (onlyInInstruct.length > 0) {
    findings.push({ severity: 'warning', code: 'tensor-missing', message: `${countOf(onlyInInstruct.length, 'tensor')} only in Instruct (kept as ${onlyInInstruct.length === 1 ? 'it is' : 'they are'}): ${list(onlyInInstruct)}` });
  }
  if (onlyInThinking.length > 0) {
    findings.push({ severity: 'warning', code: 'tensor-extra', message: `${countOf(onlyInThinking.length, 'tensor')} only in Thinking (copied into the edit): ${list(onlyInThinking)}` });
  }
  if (shapeMismatches.length > 0) {
    findings.push({ severity: 'warning', code: 'tensor-shape', message: `${countOf(shapeMismatches.length, 'tensor differs', 'tensors differ')} in shape (Instruct kept): ${list(shapeMismatches.map((m) => `${m.name} ${m.instruct} vs ${m.thinking}`))}` });
  }
  // Floating dtypes are all read as float32, so they pair; a non-floating side (I64, BOOL…) has no δ.
  const [widened, unpaired] = partition(dtypeMismatches, (m) => isFloatDType(m.instruct) && isFloatDType(m.thinking));
  if (widened.length > 0) {
    findings.push({ severity: 'info', code: 'tensor-dtype', message: `${countOf(widened.length, 'tensor differs', 'tensors differ')} in dtype (both are read as float32): ${list(widened.map((m) => m.name))}` });
  }
  if (unpaired.length > 0) {
    findings.push({ severity: 'error', code: 'tensor-dtype', message: `${countOf(unpaired.length, 'tensor differs in dtype and its sides are', 'tensors differ in dtype and are')} not both floating point, so no δ can be formed: ${list(unpaired.map((m) => `${m.name} ${m.instruct} vs ${m.thinking}`))}` });
  }
  const shared = [...a.keys()].filter((n) => b.has(n)).length;
  return { sharedTensors: shared, onlyInInstruct, onlyInThinking, shapeMismatches, dtypeMismatches };
}

/**
 * An architecture the studio has no runtime for (Qwen3-Next) is merged from a reference run: say
 * so, and refuse by name every tensor of either side it would not know how to edit.
 */
function checkReferenceOnly(instruct: Checkpoint, thinking: Checkpoint, findings: PairFinding[]): void {
  const architectures = instruct.config['architectures'];
  const note = referenceOnlyNote(Array.isArray(architectures) ? architectures.filter((a) => typeof a === 'string') : []);
  if (note !== null) findings.push({ severity: 'info', code: 'reference-only', message: note });
  if (!isQwen3Next(instruct.config)) return;
  const names = new Set([...instruct.tensors.keys(), ...thinking.tensors.keys()]);
  const unknown = unknownQwen3NextTensors(names, instruct.config);
  for (const { name, reason } of unknown.slice(0, 5)) {
    findings.push({ severity: 'error', code: 'tensor-unknown', message: `tensor ${name} ${reason}: the studio does not know how to edit it` });
  }
  if (unknown.length > 5) findings.push({ severity: 'error', code: 'tensor-unknown', message: `… and ${unknown.length - 5} more tensors Qwen3-Next does not have` });
}

function compareTokenizers(a: TokenizerSummary, b: TokenizerSummary, findings: PairFinding[]): void {
  if (a.fileHash === undefined || b.fileHash === undefined) {
    findings.push({ severity: 'warning', code: 'tokenizer-missing', message: `tokenizer.json missing in ${a.fileHash === undefined ? 'Instruct' : 'Thinking'}: token ids cannot be checked` });
  } else if (a.fileHash !== b.fileHash && a.vocabHash() !== b.vocabHash()) {
    findings.push({ severity: 'error', code: 'tokenizer-vocab', message: `tokenizer.json models differ (vocabulary, merges or type; ${a.vocabSize} vs ${b.vocabSize} entries): the same id would mean different tokens` });
  }
  for (const [content, left] of a.addedTokens) {
    const right = b.addedTokens.get(content);
    if (right === undefined) {
      findings.push({ severity: left.special ? 'error' : 'warning', code: 'special-token', message: `token ${content} (id ${left.id}) exists only in Instruct` });
    } else if (right.id !== left.id) {
      findings.push({ severity: 'error', code: 'special-token', message: `token ${content} has id ${left.id} in Instruct but ${right.id} in Thinking` });
    }
  }
  for (const [content, right] of b.addedTokens) {
    if (!a.addedTokens.has(content)) {
      findings.push({ severity: right.special ? 'error' : 'warning', code: 'special-token', message: `token ${content} (id ${right.id}) exists only in Thinking` });
    }
  }
  if (a.chatTemplate !== b.chatTemplate) {
    findings.push({
      severity: a.chatTemplate === undefined ? 'warning' : 'info',
      code: 'chat-template',
      message: a.chatTemplate === undefined
        ? 'Instruct has no chat template: calibration chats cannot be rendered'
        : 'chat templates differ: calibration chats are rendered with the Instruct template',
    });
  }
}
