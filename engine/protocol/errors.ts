/**
 * The protocol's one error type. Every failure that crosses the engine boundary carries a code
 * from this list, so the UI can branch on `code` and show `message` to the researcher.
 */
import { z } from 'zod';

export const ERROR_CODES = [
  /** The message could not be decoded or is not a well-formed envelope. */
  'bad-request',
  /** The method is not in the protocol map. */
  'unknown-method',
  /** The envelope is fine but its params do not match the method's schema. */
  'invalid-params',
  /** The message exceeds the host's size limit; it was not decoded. */
  'too-large',
  /** Cancelled by the caller (cancel request, AbortSignal, closed connection). */
  'cancelled',
  /** A file or folder the request names does not exist. */
  'not-found',
  /** A path from the UI is not absolute, not normalised, or not the expected kind. */
  'invalid-path',
  /** A checkpoint folder exists but its files are malformed. */
  'invalid-checkpoint',
  /** The file or folder to be written exists already (an export folder without overwrite). */
  'already-exists',
  /** A file exists but could not be read or written (permissions, a full disk). */
  'io-error',
  /** The engine part behind this method is not built yet. */
  'not-implemented',
  /** Any other engine failure (a bug, an I/O error, an invalid result). */
  'engine-error',
  /** Client side: the connection closed before the reply arrived. */
  'disconnected',
  /** Client side: the engine's reply or event failed validation. */
  'bad-response',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorInfoSchema = z.strictObject({
  code: z.enum(ERROR_CODES),
  message: z.string(),
});

export type ErrorInfo = z.infer<typeof errorInfoSchema>;

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';

  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }

  toInfo(): ErrorInfo {
    return { code: this.code, message: this.message };
  }

  static fromInfo(info: ErrorInfo): ProtocolError {
    return new ProtocolError(info.code, info.message);
  }
}

/** One line naming the first offending field, e.g. `params.block.layer: expected int`. */
export function describeZodError(error: z.ZodError, root: string): string {
  const issue = error.issues[0];
  if (issue === undefined) return `${root}: invalid`;
  const path = [root, ...issue.path.map(String)].join('.');
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  return `${path}: ${issue.message}${more}`;
}
