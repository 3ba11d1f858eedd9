import { describe, expect, it } from 'vitest';
import { METHODS, METHOD_NAMES, methodFromParameters, type MethodParameter } from './method-parameters.ts';
import { DEFAULT_BASELINES, DEFAULT_CRANE_SETTINGS, defaultMethod } from './settings-defaults.ts';
import { mergeMethodSchema, type MergeMethodName } from './settings-schemas.ts';

const baselines = METHOD_NAMES.filter((name): name is Exclude<MergeMethodName, 'crane'> => name !== 'crane');
const parameters = (name: MergeMethodName): readonly MethodParameter[] => METHODS[name].parameters;

describe('the methods table', () => {
  it('covers every method of the protocol', () => {
    expect(new Set(METHOD_NAMES)).toEqual(new Set(mergeMethodSchema.options.map((o) => o.shape.method.value)));
  });

  it('lists every setting of each baseline as an editable parameter whose default is the reference default (files have none)', () => {
    for (const name of baselines) {
      const [files, valued] = [parameters(name).filter((p) => p.kind === 'path'), parameters(name).filter((p) => p.kind !== 'path')];
      expect(valued.map((p) => p.key).sort(), name).toEqual(Object.keys(DEFAULT_BASELINES[name]).filter((k) => k !== 'method').sort());
      for (const p of valued) expect(p.default, `${name}.${p.key}`).toBe((DEFAULT_BASELINES[name] as Record<string, unknown>)[p.key]);
      for (const p of files) expect(Object.hasOwn(DEFAULT_BASELINES[name], p.key), `${name}.${p.key}`).toBe(false);
      expect(methodFromParameters(name, {}, DEFAULT_CRANE_SETTINGS)).toEqual(defaultMethod(name, DEFAULT_CRANE_SETTINGS));
    }
  });

  it("CRANE's parameters are settings keys whose defaults are a new project's", () => {
    for (const p of parameters('crane')) expect(p.default, p.key).toBe(DEFAULT_CRANE_SETTINGS[p.key as keyof typeof DEFAULT_CRANE_SETTINGS]);
  });

  it('uses one flag per parameter within a method', () => {
    for (const name of METHOD_NAMES) expect(new Set(parameters(name).map((p) => p.flag)).size, name).toBe(parameters(name).length);
  });

  it('accepts values inside each range and the schema refuses values past a closed upper bound', () => {
    for (const name of METHOD_NAMES) {
      for (const p of parameters(name)) {
        const middle = (lo: number, hi: number, integer: boolean) => (integer ? Math.floor((lo + hi) / 2) : (lo + hi) / 2);
        const inside = p.kind === 'path' ? `/data/${p.key}.json` : p.kind === 'choice' ? p.options.at(-1) : p.max === null ? p.default + p.step : middle(p.min, p.max, p.integer);
        const method = methodFromParameters(name, { [p.key]: inside }, DEFAULT_CRANE_SETTINGS);
        const settings = method.method === 'crane' ? method.settings : method;
        expect((settings as Record<string, unknown>)[p.key], `${name}.${p.key}`).toBe(inside);
        const max = p.kind === 'number' ? p.max : null;
        if (max !== null) expect(() => methodFromParameters(name, { [p.key]: max + 1 }, DEFAULT_CRANE_SETTINGS), `${name}.${p.key}`).toThrow();
        if (p.kind === 'number') expect(() => methodFromParameters(name, { [p.key]: p.min - 1 }, DEFAULT_CRANE_SETTINGS), `${name}.${p.key}`).toThrow();
      }
    }
  });

  it("takes a cleared path (RAIN's calibration files) as no file", () => {
    const rain = methodFromParameters('rain', { reasoningFile: '', instructionsFile: '/data/instructions.jsonl' }, DEFAULT_CRANE_SETTINGS);
    expect(rain).toMatchObject({ method: 'rain', instructionsFile: '/data/instructions.jsonl' });
    expect(rain).not.toHaveProperty('reasoningFile');
  });

  it('keeps the rest of the CRANE settings it is given', () => {
    const crane = { ...DEFAULT_CRANE_SETTINGS, granularity: 'fine' as const };
    expect(methodFromParameters('crane', { alpha: 0.5 }, crane)).toEqual({ method: 'crane', settings: { ...crane, alpha: 0.5 } });
  });
});
