/** Every `crane` sub-command, in the order `crane --help` lists them. */
import type { CliCommand } from './command.ts';
import { doctorCommand } from './doctor-command.ts';
import { inspectCommand } from './inspect-command.ts';
import { scoreCommand } from './score-command.ts';
import { serveCommand } from './serve-command.ts';

export const COMMANDS: readonly CliCommand[] = [inspectCommand, scoreCommand, doctorCommand, serveCommand];
