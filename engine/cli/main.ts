/** `crane`: the command-line face of the engine. Each sub-command lives in its own file. */
import { CalibrationError } from '../calibration/calibration-error.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { BackendError } from '../tensor/backend.ts';
import { UsageError, type CliCommand, type CliIo } from './command.ts';
import { COMMANDS } from './commands.ts';

export function usage(commands: readonly CliCommand[] = COMMANDS): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'crane — CRANE Studio engine: inspect, score and edit Instruct/Thinking checkpoint pairs',
    '',
    'Usage: crane <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `crane <command> --help` for the options of one command.',
  ].join('\n');
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  isTty: process.stderr.isTTY === true,
};

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.err(`crane: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.help);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.err(`crane ${name}: ${error.message}\nRun \`crane ${name} --help\` for usage.`);
      return 2;
    }
    // Errors about the user's files or machine: the message says what and where; no stack.
    if (error instanceof CheckpointError || error instanceof CalibrationError || error instanceof BackendError) {
      io.err(`crane ${name}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

/** node:util parseArgs reports unknown or malformed options with these codes. */
function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS');
}
