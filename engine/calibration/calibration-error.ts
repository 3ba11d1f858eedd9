/**
 * The one error type of engine/calibration. Every failure names where it happened — a tokenizer
 * file, a chat template, or `file:line` of a JSONL dataset — so a researcher can fix the input
 * without reading a stack trace.
 */
export type CalibrationErrorCode =
  | 'not-found'
  | 'io'
  | 'encoding'
  | 'json'
  | 'config'
  | 'tokenizer'
  | 'missing-token'
  | 'template'
  | 'dataset'
  | 'too-long'
  | 'unstable-tokenization';

export class CalibrationError extends Error {
  override readonly name = 'CalibrationError';

  constructor(
    readonly code: CalibrationErrorCode,
    /** A file path, `file:line`, or a label such as "tokenizer_config.json chat_template". */
    readonly where: string,
    readonly detail: string,
  ) {
    super(`${where}: ${detail}`);
  }
}
