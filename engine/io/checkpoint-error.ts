/**
 * The one error type of checkpoint I/O. Every failure names the file (and the tensor, where one is
 * involved) so that a researcher can find the broken piece without a debugger.
 */
export type CheckpointErrorCode =
  | 'not-found'
  | 'io'
  | 'not-a-file'
  | 'encoding'
  | 'truncated'
  | 'header-length'
  | 'header-json'
  | 'header-entry'
  | 'dtype'
  | 'shape'
  | 'offsets'
  | 'overlap'
  | 'duplicate'
  | 'metadata'
  | 'index'
  | 'config'
  | 'non-finite'
  | 'write'
  | 'exists'
  | 'archive'
  | 'pickle';

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';

  constructor(
    readonly code: CheckpointErrorCode,
    readonly file: string,
    readonly detail: string,
    readonly tensor?: string,
  ) {
    super(`${file}: ${tensor === undefined ? '' : `tensor "${tensor}": `}${detail}`);
  }
}
