/** The shape of one `crane` sub-command. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** True when stderr is a terminal (progress bars are drawn only then). */
  readonly isTty: boolean;
}

export interface CliCommand {
  readonly name: string;
  /** One line for `crane --help`. */
  readonly summary: string;
  /** Full text for `crane NAME --help`. */
  readonly help: string;
  /** Returns the process exit code. */
  readonly run: (args: readonly string[], io: CliIo) => Promise<number>;
}

/** Thrown for bad command-line usage; printed with the command's help hint, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A command's flags and its positional arguments (node:util parseArgs, strict: an unknown flag throws). */
export function parseCommandArgs<const O extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: O) {
  return parseArgs({ args: [...args], allowPositionals: true, options });
}
