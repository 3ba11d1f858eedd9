/**
 * The command line of every tools/ script: node:util parseArgs (strict) with a usage text built
 * from the same option table it parses, so `--help` cannot list an option the script does not
 * take nor miss one it does. `--help` / `-h` prints the text on stdout and exits 0; an unknown
 * option, a missing value or a stray positional prints one line on stderr and exits 2, not a
 * Node stack trace. Scripts call exitWithUsageError for their own checks (a missing required option).
 *
 *   const CLI = {
 *     usage: ['node --import tsx tools/x.ts --out DIR [--layers 2]'],
 *     options: { out: { type: 'string', value: 'DIR', help: 'where to write' }, layers: { type: 'string', value: 'N', default: '2', help: 'decoder layers' } },
 *   } as const satisfies CliSpec;
 *   const { values } = parseCli(CLI);
 *   if (values.out === undefined) exitWithUsageError(CLI, '--out DIR is required');
 */
import { relative } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

interface OptionText {
  /** One line for the options list: what the option does. */
  readonly help: string;
  readonly short?: string;
}

/** A string option names its value in the usage text (`--out DIR`). */
export interface CliStringOption extends OptionText {
  readonly type: 'string';
  readonly value: string;
  readonly default?: string;
  readonly multiple?: false;
}

export interface CliBooleanOption extends OptionText {
  readonly type: 'boolean';
  readonly default?: boolean;
  readonly multiple?: false;
}

export type CliOption = CliStringOption | CliBooleanOption;

export interface CliSpec {
  /** Synopsis lines, each a whole command as it is typed. */
  readonly usage: readonly string[];
  /** Optional paragraph printed between the synopsis and the options. */
  readonly about?: string;
  readonly options: Readonly<Record<string, CliOption>>;
  readonly allowPositionals?: boolean;
}

type Parsed<S extends CliSpec> = ReturnType<typeof parseArgs<{ options: S['options']; allowPositionals: S['allowPositionals']; strict: true }>>;

export type CommandLine<S extends CliSpec> =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'error'; readonly message: string }
  | ({ readonly kind: 'parsed' } & Parsed<S>);

const HELP: CliBooleanOption = { type: 'boolean', short: 'h', help: 'print this text and exit' };

function withHelp(spec: CliSpec): Readonly<Record<string, CliOption>> {
  return { ...spec.options, help: HELP };
}

/** The --help text of `spec`: synopsis, about, then one line per option with its default. */
export function usageText(spec: CliSpec): string {
  const [first = '', ...rest] = spec.usage;
  const lines = [`usage: ${first}`, ...rest.map((line) => `       ${line}`)];
  if (spec.about !== undefined) lines.push('', spec.about);
  const rows = Object.entries(withHelp(spec)).map(([name, option]) => {
    const flag = `${option.short === undefined ? '' : `-${option.short}, `}--${name}${option.type === 'string' ? ` ${option.value}` : ''}`;
    const fallback = option.default === undefined || option.default === false ? '' : ` (default ${String(option.default)})`;
    return [flag, `${option.help}${fallback}`] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  lines.push('', 'options:', ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`));
  return `${lines.join('\n')}\n`;
}

/** One line for a usage error: what was wrong, then the first synopsis line. */
export function usageErrorLine(spec: CliSpec, message: string): string {
  return `${message} (usage: ${spec.usage[0] ?? ''}; --help for more)`;
}

/** `argv` read against `spec`, without touching the process: the help text, what is wrong with it, or the values. */
export function readCommandLine<const S extends CliSpec>(spec: S, argv: readonly string[]): CommandLine<S> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, { type, short, default: fallback }] of Object.entries(withHelp(spec))) {
    options[name] = { type, ...(short === undefined ? {} : { short }), ...(fallback === undefined ? {} : { default: fallback }) };
  }
  const beforeTerminator = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  const asksHelp = beforeTerminator.some((arg) => arg === '--help' || arg === '-h');
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, allowPositionals: spec.allowPositionals === true, strict: true });
    if (values['help'] === true) return { kind: 'help', text: usageText(spec) };
    delete values['help'];
    return { kind: 'parsed', values, positionals } as CommandLine<S>;
  } catch (error) {
    if (!isParseArgsError(error)) throw error;
    if (asksHelp) return { kind: 'help', text: usageText(spec) };
    // The first sentence of Node's message says what is wrong; the rest hints at '--' or '--opt=-x'.
    return { kind: 'error', message: error.message.split(/\.(?:\s|$)/)[0] ?? error.message };
  }
}

/** The script's name as the user typed it, for error lines: tools/demo/eval.ts. */
function scriptName(): string {
  const script = process.argv[1];
  return script === undefined ? 'tools' : relative(process.cwd(), script);
}

/** Prints a usage error line (`message`, then the first synopsis line) on stderr and exits 2: for the script's own checks. */
export function exitWithUsageError(spec: CliSpec, message: string): never {
  process.stderr.write(`${scriptName()}: ${usageErrorLine(spec, message)}\n`);
  process.exit(2);
}

/** The process's command line read against `spec`; exits 0 after printing the help text, 2 after a usage error line. */
export function parseCli<const S extends CliSpec>(spec: S, argv: readonly string[] = process.argv.slice(2)): Parsed<S> {
  const line = readCommandLine(spec, argv);
  if (line.kind === 'help') {
    process.stdout.write(line.text);
    process.exit(0);
  }
  if (line.kind === 'error') exitWithUsageError(spec, line.message);
  return { values: line.values, positionals: line.positionals } as Parsed<S>;
}

function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS_');
}
