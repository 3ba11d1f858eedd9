/** Checkpoint and pair facts in the protocol's shapes, and checkpoint errors as protocol errors. */
import { CheckpointError, type CheckpointErrorCode } from '../io/checkpoint-error.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import type { PairReport } from '../io/pair-report.ts';
import { ProtocolError, type ErrorCode } from '../protocol/errors.ts';
import type { Result } from '../protocol/methods.ts';

type Detail = Result<'inspectCheckpoint'>;
type PairSummary = Result<'openPair'>;

export function checkpointSummary(checkpoint: Checkpoint): Detail['summary'] {
  const { config } = checkpoint;
  const layers = config['num_hidden_layers'];
  const architectures = config['architectures'];
  return {
    dir: checkpoint.dir,
    modelType: typeof config['model_type'] === 'string' ? config['model_type'] : null,
    architectures: Array.isArray(architectures) ? architectures.filter((a): a is string => typeof a === 'string') : [],
    layers: Number.isSafeInteger(layers) && (layers as number) >= 0 ? (layers as number) : null,
    totalBytes: checkpoint.totalBytes,
    tensorCount: checkpoint.tensors.size,
    shards: [...checkpoint.shardFiles],
    sideFiles: [...checkpoint.sideFiles],
  };
}

export function tensorRows(checkpoint: Checkpoint): Detail['tensors'] {
  return [...checkpoint.tensors.values()].map((t) => ({ name: t.name, dtype: t.dtype, shape: [...t.shape], shard: t.shard, bytes: t.bytes }));
}

/** The report without its two folder paths, which the pair summary already carries. */
export function pairReportView(report: PairReport): PairSummary['report'] {
  return {
    compatible: report.compatible,
    verdict: report.verdict,
    sharedTensors: report.sharedTensors,
    onlyInInstruct: [...report.onlyInInstruct],
    onlyInThinking: [...report.onlyInThinking],
    shapeMismatches: report.shapeMismatches.map((m) => ({ ...m })),
    dtypeMismatches: report.dtypeMismatches.map((m) => ({ ...m })),
    findings: report.findings.map((f) => ({ ...f })),
    tokens: { think: [...report.tokens.think], special: [...report.tokens.special] },
    ...(report.base === undefined ? {} : {
      base: { ...report.base, missingTensors: [...report.base.missingTensors], shapeMismatches: report.base.shapeMismatches.map((m) => ({ ...m })) },
    }),
  };
}

/**
 * What happened, as the protocol's code: a missing file or folder is 'not-found', an output that
 * exists 'already-exists', a failed read or write 'io-error'; every other checkpoint failure is a
 * malformed file. The message names the file either way.
 */
export function toProtocolError(error: unknown): unknown {
  if (!(error instanceof CheckpointError)) return error;
  return new ProtocolError(PROTOCOL_CODES[error.code] ?? 'invalid-checkpoint', error.message);
}

const PROTOCOL_CODES: Partial<Record<CheckpointErrorCode, ErrorCode>> = { 'not-found': 'not-found', exists: 'already-exists', io: 'io-error', write: 'io-error' };
