import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MEMORY_BUDGET, memoryBudget, planMemory, setMemoryBudget } from '../model/memory-plan.ts';
import { runCli } from './testing.ts';
import { applyMemoryBudgetFlag } from './memory-budget-flag.ts';

afterEach(() => setMemoryBudget(DEFAULT_MEMORY_BUDGET));

describe('--memory-budget', () => {
  it('sets the budget the runtime plans its chunks with', () => {
    applyMemoryBudgetFlag('6GiB');
    expect(memoryBudget()).toBe(6 * 1024 ** 3);
    const spec = { hiddenSize: 2560, vocabSize: 151_936 };
    expect(planMemory(spec).vocabChunk).toBeGreaterThan(planMemory(spec, DEFAULT_MEMORY_BUDGET).vocabChunk);
  });

  it('leaves the default when absent', () => {
    applyMemoryBudgetFlag(undefined);
    expect(memoryBudget()).toBe(DEFAULT_MEMORY_BUDGET);
  });

  it.each([
    ['lots', /--memory-budget must be a size such as 5GB or 512MiB, got "lots"/],
    ['100MiB', /--memory-budget must be at least 256MiB, got "100MiB"/],
  ])('refuses %s naming the flag', (value, message) => {
    expect(() => applyMemoryBudgetFlag(value)).toThrow(message);
    expect(memoryBudget()).toBe(DEFAULT_MEMORY_BUDGET);
  });

  it.each(['score', 'analyze', 'verify'])('crane %s --help documents it', async (command) => {
    const { out, code } = await runCli([command, '--help']);
    expect(code).toBe(0);
    expect(out).toMatch(/--memory-budget SIZE\s+tensor memory the model may use \(default 3\.00 GiB/);
  });

  it('crane score refuses a bad budget with a usage error before reading anything', async () => {
    const { err, code } = await runCli(['score', '/nonexistent', '/nonexistent.jsonl', '--memory-budget', 'lots']);
    expect(code).toBe(2);
    expect(err).toMatch(/--memory-budget must be a size such as 5GB or 512MiB, got "lots"/);
  });
});
