/** Every `crane` sub-command, in the order `crane --help` lists them. */
import type { CliCommand } from './command.ts';
import { analyzeCommand } from './analyze-command.ts';
import { doctorCommand } from './doctor-command.ts';
import { importReferenceCommand } from './import-reference-command.ts';
import { inspectCommand } from './inspect-command.ts';
import { lewisImportanceCommand } from './lewis-importance-command.ts';
import { mergeCommand } from './merge-command.ts';
import { previewCommand } from './preview-command.ts';
import { scoreCommand } from './score-command.ts';
import { serveCommand } from './serve-command.ts';
import { verifyCommand } from './verify-command.ts';

export const COMMANDS: readonly CliCommand[] = [inspectCommand, analyzeCommand, previewCommand, verifyCommand, mergeCommand, lewisImportanceCommand, importReferenceCommand, scoreCommand, doctorCommand, serveCommand];
