/**
 * `--memory-budget SIZE`, shared by `crane analyze`, `crane score` and `crane verify`: how much
 * tfjs memory the model runtime plans its chunks for (model/memory-plan.ts).
 */
import { DEFAULT_MEMORY_BUDGET, setMemoryBudget } from '../model/memory-plan.ts';
import { formatBytes } from '../protocol/format-bytes.ts';
import { parseByteSize } from './cli-settings.ts';
import { UsageError } from './command.ts';
import { flagHelpLine } from './format.ts';

export const MEMORY_BUDGET_FLAG = { 'memory-budget': { type: 'string' } } as const;

/** The flag's help lines, descriptions starting at `column` like the command's other flags. */
export function memoryBudgetHelp(column: number): string {
  const indent = ' '.repeat(column);
  return [
    flagHelpLine('  --memory-budget SIZE', column, `tensor memory the model may use (default ${formatBytes(DEFAULT_MEMORY_BUDGET)}; e.g. 6GiB,`),
    `${indent}1500MiB): sets the lm_head vocab chunk and the attention query chunk;`,
    `${indent}the wasm backend's heap is 4 GiB whatever the budget`,
  ].join('\n');
}

/** Applies the flag to every model loaded from now on (worker threads too); nothing when absent. */
export function applyMemoryBudgetFlag(value: string | undefined): void {
  if (value === undefined) return;
  const bytes = parseByteSize(value, '--memory-budget');
  if (bytes < 256 * 1024 ** 2) throw new UsageError(`--memory-budget must be at least 256MiB, got "${value}"`);
  setMemoryBudget(bytes);
}
