/**
 * tools/cli-args.ts: the help text lists exactly the options parsed, with their defaults; bad
 * command lines come back as one line; and a real script answers --help / -h / an unknown
 * option in a subprocess with the promised streams and exit codes.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCommandLine, usageErrorLine, usageText, type CliSpec } from './cli-args.ts';

/** tools/**\/*.ts but the tests, as paths from the repository root (vitest runs there). */
function toolsSources(): string[] {
  return readdirSync('tools', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => join('tools', file))
    .sort();
}

/** The repository paths `file` imports relatively, statically or with import(). */
function importsOf(file: string): string[] {
  const specifiers = [...readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1] as string);
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)));
}

/** The scripts a user runs: package.json's tools/*.ts targets, and every tools file no other tools file imports. */
function toolsEntryPoints(): string[] {
  const scripts = Object.values((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts);
  const named = scripts.flatMap((line) => [...line.matchAll(/\b(tools\/\S+\.ts)\b/g)].map((match) => match[1] as string));
  const sources = toolsSources();
  const imported = new Set(sources.flatMap(importsOf));
  return [...new Set([...named, ...sources.filter((file) => !imported.has(file))])].filter((file) => file !== 'tools/cli-args.ts').sort();
}

const SPEC = {
  usage: ['node --import tsx tools/x.ts --out DIR [--layers 2] [--keep]', 'node --import tsx tools/x.ts --phase P'],
  about: 'Writes a thing.',
  options: {
    out: { type: 'string', value: 'DIR', help: 'where to write' },
    layers: { type: 'string', value: 'N', default: '2', help: 'decoder layers' },
    keep: { type: 'boolean', help: 'keep the temp folder' },
    phase: { type: 'string', value: 'P', short: 'p', help: 'internal: one phase' },
  },
} as const satisfies CliSpec;

describe('usageText', () => {
  it('prints the synopsis lines, the about text and one line per option with its default', () => {
    expect(usageText(SPEC)).toBe([
      'usage: node --import tsx tools/x.ts --out DIR [--layers 2] [--keep]',
      '       node --import tsx tools/x.ts --phase P',
      '',
      'Writes a thing.',
      '',
      'options:',
      '  --out DIR      where to write',
      '  --layers N     decoder layers (default 2)',
      '  --keep         keep the temp folder',
      '  -p, --phase P  internal: one phase',
      '  -h, --help     print this text and exit',
      '',
    ].join('\n'));
  });
});

describe('readCommandLine', () => {
  it('returns the values with defaults filled in, and no help key', () => {
    const line = readCommandLine(SPEC, ['--out', 'o', '--keep', '-p', 'write']);
    expect(line).toEqual({ kind: 'parsed', values: { out: 'o', layers: '2', keep: true, phase: 'write' }, positionals: [] });
  });

  it.each([[['--help']], [['-h']], [['--out', 'o', '-h']]])('answers %j with the help text', (argv) => {
    expect(readCommandLine(SPEC, argv)).toEqual({ kind: 'help', text: usageText(SPEC) });
  });

  it('gives help even when the rest of the line is wrong, but not for a -h after --', () => {
    expect(readCommandLine(SPEC, ['--bogus', '--help']).kind).toBe('help');
    expect(readCommandLine({ ...SPEC, allowPositionals: true }, ['--', '-h'])).toMatchObject({ kind: 'parsed', positionals: ['-h'] });
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--out'], "Option '--out <value>' argument missing"],
    [['--keep=yes'], "Option '--keep' does not take an argument"],
    [['stray'], "Unexpected argument 'stray'"],
    [['--out', '-x'], "Option '--out' argument is ambiguous"],
  ])('refuses %j with the first sentence of the reason', (argv, message) => {
    expect(readCommandLine(SPEC, argv)).toEqual({ kind: 'error', message });
  });

  it('takes positionals only when the spec allows them', () => {
    expect(readCommandLine({ ...SPEC, allowPositionals: true }, ['a', '--keep', 'b'])).toMatchObject({ kind: 'parsed', positionals: ['a', 'b'] });
  });

  it('lets errors other than parseArgs ones through', () => {
    expect(() => readCommandLine({ usage: ['x'], options: { n: { type: 'string', value: 'N', default: 1 as unknown as string, help: 'n' } } }, [])).toThrow(/default/);
  });
});

describe('usageErrorLine', () => {
  it('is one line naming the problem and the first synopsis line', () => {
    const line = usageErrorLine(SPEC, '--out DIR is required');
    expect(line).toBe('--out DIR is required (usage: node --import tsx tools/x.ts --out DIR [--layers 2] [--keep]; --help for more)');
    expect(line).not.toContain('\n');
  });
});

describe('a tools script in a subprocess', () => {
  const run = (...argv: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'tools/run-gradients-stage.ts', ...argv], { encoding: 'utf8' });

  it('prints its usage on stdout and exits 0 for --help and -h', () => {
    for (const flag of ['--help', '-h']) {
      const child = run(flag);
      expect(child.stderr).toBe('');
      expect(child.status).toBe(0);
      expect(child.stdout).toMatch(/^usage: node --import tsx tools\/run-gradients-stage\.ts INSTRUCT ANALYSIS_DIR \[--workers N\]\n/);
      expect(child.stdout).toContain('  --workers N');
    }
  });

  it('answers an unknown option, or missing positionals, with one line on stderr and exit 2', () => {
    for (const argv of [['--bogus'], ['only-one-dir']]) {
      const child = run(...argv);
      expect(child.status).toBe(2);
      expect(child.stdout).toBe('');
      expect(child.stderr).toMatch(/^tools\/run-gradients-stage\.ts: .+ \(usage: node --import tsx tools\/run-gradients-stage\.ts INSTRUCT ANALYSIS_DIR \[--workers N\]; --help for more\)\n$/);
    }
  });
});

describe('every tools script', () => {
  it('reads its command line through cli-args.ts', () => {
    const entries = toolsEntryPoints();
    expect(entries).toEqual(expect.arrayContaining(['tools/qwen3-tiny-pair.ts', 'tools/demo/train.ts', 'tools/start.ts', 'tools/setup/build-electron.ts']));
    const without = entries.filter((file) => !importsOf(file).includes('tools/cli-args.ts'));
    expect(without).toEqual([]);
  });

  it('leaves parseArgs to cli-args.ts', () => {
    const raw = toolsSources().filter((file) => file !== 'tools/cli-args.ts' && /\bparseArgs\b/.test(readFileSync(file, 'utf8')));
    expect(raw).toEqual([]);
  });
});
