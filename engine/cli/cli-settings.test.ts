import { describe, expect, it } from 'vitest';
import { defaultResolvedSettings, DEFAULT_BASELINES } from '../protocol/settings-defaults.ts';
import { METHOD_NAMES, parametersOf } from '../protocol/method-parameters.ts';
import { craneSettingsFromFlags, EDIT_FLAGS, EDIT_FLAGS_HELP, editMethodFromFlags, methodSettingsWithTokenRows, parseByteSize, rainSettingsFromFlags } from './cli-settings.ts';
import { UsageError } from './command.ts';
import { RAIN_FLAGS_HELP } from './rain-flags.ts';

const TOKENS = { think: [7], special: [0] };

describe('edit flags → the protocol settings', () => {
  it('gives the protocol defaults when no flag is set, k following 4.6/τ', () => {
    expect(craneSettingsFromFlags({}, TOKENS)).toEqual(defaultResolvedSettings(TOKENS));
    expect(craneSettingsFromFlags({ tau: '0.1' }, TOKENS).steepness).toBeCloseTo(46, 12);
  });

  it('reads every CRANE flag into the one vocabulary', () => {
    const settings = craneSettingsFromFlags({
      alpha: '0.4', q: '0.3', tau: '0.05', k: '20', 'no-gate': true, fine: true, override: ['attention@3=0.5', 'norm@*=0'],
    }, TOKENS);
    expect(settings).toMatchObject({
      alpha: 0.4, keepQuantile: 0.3, tau: 0.05, steepness: 20, stages: { threshold: true, gate: false, gsp: true }, granularity: 'fine',
      overrideScales: { 'attention@3': 0.5, 'norm@*': 0 },
    });
  });

  it('edits the protected lm_head rows with --protect-ids, recording the edits beside the resulting rows', () => {
    const tokens = { think: [7], special: [0, 1, 2] };
    const settings = craneSettingsFromFlags({ 'protect-ids': '+9,-1' }, tokens);
    expect(settings.tokens).toEqual({ think: [7], special: [0, 2, 9] });
    expect(settings.special.protectedTokens).toEqual({ add: [9], remove: [1] });
    expect(() => craneSettingsFromFlags({ 'protect-ids': '+9,x' }, tokens)).toThrow(/^--protect-ids: "x" is not a token id edit/);
    expect(() => craneSettingsFromFlags({ 'protect-ids': '+9,x' }, tokens)).toThrow(UsageError);
  });

  it('reads --arith: f32 by default, reference for the bf16 arithmetic, anything else refused', () => {
    expect(craneSettingsFromFlags({}, TOKENS).arith).toBe('f32');
    expect(craneSettingsFromFlags({ arith: 'reference' }, TOKENS).arith).toBe('reference');
    expect(() => craneSettingsFromFlags({ arith: 'bf16' }, TOKENS)).toThrow(/^--arith must be f32 or reference, got "bf16"/);
  });

  it('names the baselines as the protocol does, with its defaults', () => {
    expect(editMethodFromFlags({ method: 'task_arithmetic' }, TOKENS)).toEqual(DEFAULT_BASELINES.task_arithmetic);
    expect(editMethodFromFlags({ method: 'slerp', alpha: '0.6' }, TOKENS)).toEqual({ method: 'slerp', t: 0.6 });
    expect(editMethodFromFlags({ method: 'dare', drop: '0.2', seed: '3' }, TOKENS)).toEqual({ method: 'dare', lambda: 0.3, dropProbability: 0.2, seed: 3 });
    expect(() => editMethodFromFlags({ method: 'task-arithmetic' }, TOKENS)).toThrow(/--method must be crane, task_arithmetic/);
  });

  it('refuses a flag the chosen method has no use for, naming the methods it belongs to', () => {
    expect(() => editMethodFromFlags({ method: 'ties', override: ['attention@1=0.5'] }, TOKENS)).toThrow(new UsageError('--override does not apply to --method ties (it is a setting of crane)'));
    expect(() => editMethodFromFlags({ method: 'task_arithmetic', 'no-gate': true }, TOKENS)).toThrow(/^--no-gate does not apply to --method task_arithmetic/);
    expect(() => editMethodFromFlags({ density: '0.3' }, TOKENS)).toThrow(/^--density does not apply to --method crane \(it is a setting of ties, /);
    expect(() => editMethodFromFlags({ method: 'dare', tau: '0.1' }, TOKENS)).toThrow(/^--tau does not apply to --method dare \(it is a setting of crane\)/);
    // Shared flags and CRANE's controls on CRANE stay accepted.
    expect(editMethodFromFlags({ method: 'dare', alpha: '0.4', seed: '2' }, TOKENS)).toMatchObject({ method: 'dare', lambda: 0.4, seed: 2 });
    expect(editMethodFromFlags({ 'no-gate': true, fine: true, 'no-threshold': false }, TOKENS)).toMatchObject({ method: 'crane' });
  });

  it('refuses values outside the protocol\'s ranges, naming the flag', () => {
    const refused = (values: Parameters<typeof editMethodFromFlags>[0], flag: RegExp) => {
      expect(() => editMethodFromFlags(values, TOKENS)).toThrow(UsageError);
      expect(() => editMethodFromFlags(values, TOKENS)).toThrow(flag);
    };
    refused({ alpha: '5' }, /^--alpha is out of range/);
    refused({ method: 'ties', alpha: '-1' }, /^--alpha is out of range/);
    refused({ q: '1' }, /^--q is out of range/);
    refused({ method: 'dare', drop: '1' }, /^--drop is out of range/);
    refused({ method: 'dare', seed: '1.5' }, /^--seed is out of range/);
    refused({ override: ['attention@3=-1'] }, /^--override is out of range/);
    refused({ override: ['attention3=1'] }, /--override must look like/);
    refused({ tau: 'abc' }, /--tau got an invalid value "abc"/);
  });

  it('has a flag, a --help line and a reader for every parameter of every method in the methods table', () => {
    for (const name of METHOD_NAMES) {
      for (const p of parametersOf(name)) {
        expect(EDIT_FLAGS, `${name}.${p.key}`).toHaveProperty([p.flag]);
        // A file (RAIN's calibration files) is documented and read with the flags that require it (rain-flags.ts).
        expect(p.kind === 'path' ? RAIN_FLAGS_HELP : EDIT_FLAGS_HELP, `${name}.${p.key}`).toMatch(new RegExp(`^  --${p.flag} `, 'm'));
      }
    }
    for (const name of METHOD_NAMES.filter((n) => n !== 'crane' && !n.startsWith('aim') && n !== 'lewis')) {
      for (const p of parametersOf(name)) {
        if (p.kind !== 'number') continue;
        const value = p.integer ? p.default + 1 : (p.default + (p.max ?? p.default + 1)) / 2;
        // RAIN reads a Base besides the pair: its flags are read on their own, the pair's reader refuses it.
        const read = name === 'rain' ? rainSettingsFromFlags({ [p.flag]: String(value) }) : editMethodFromFlags({ method: name, [p.flag]: String(value) }, TOKENS);
        expect(read, `${name}.${p.key}`).toMatchObject({ [p.key]: value });
      }
    }
    expect(() => editMethodFromFlags({ method: 'rain' }, TOKENS)).toThrow('RAIN needs a Base checkpoint: pass --base');
  });
});

describe('byte sizes', () => {
  it('reads decimal and binary units, and names the flag actually given when refusing a size', () => {
    expect(parseByteSize('5GB', '--shard-size')).toBe(5e9);
    expect(parseByteSize('512MiB', '--pass-hold')).toBe(512 * 1024 ** 2);
    expect(() => parseByteSize('lots', '--pass-hold')).toThrow(new UsageError('--pass-hold must be a size such as 5GB or 512MiB, got "lots"'));
    expect(() => parseByteSize('0KB', '--shard-size')).toThrow(new UsageError('--shard-size must be a size such as 5GB or 512MiB, got "0KB"'));
  });
});

describe('methodSettingsWithTokenRows', () => {
  it('asks for the token rows for CRANE only, after the flags are checked', async () => {
    const asked: string[] = [];
    const rows = (label: string) => () => {
      asked.push(label);
      return Promise.resolve(TOKENS);
    };
    expect(await methodSettingsWithTokenRows({ method: 'ties', density: '0.3' }, rows('ties'))).toEqual(editMethodFromFlags({ method: 'ties', density: '0.3' }, TOKENS));
    expect(await methodSettingsWithTokenRows({ alpha: '0.4' }, rows('crane'))).toEqual(editMethodFromFlags({ alpha: '0.4' }, TOKENS));
    await expect(methodSettingsWithTokenRows({ tau: 'x' }, rows('bad crane'))).rejects.toThrow(UsageError);
    await expect(methodSettingsWithTokenRows({ method: 'dare', tau: '0.1' }, rows('bad dare'))).rejects.toThrow(/^--tau does not apply to --method dare/);
    expect(asked).toEqual(['crane']);
  });
});
