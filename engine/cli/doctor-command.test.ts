import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './command.ts';
import { doctorCommand } from './doctor-command.ts';

function capture(): CliIo & { readonly lines: string[]; readonly errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (t) => lines.push(t), err: (t) => errors.push(t), isTty: false };
}

describe('crane doctor', () => {
  it('prints backend, threads, GFLOP/s and node version as JSON', async () => {
    const io = capture();
    expect(await doctorCommand.run(['--json', '--backend', 'wasm', '--size', '64'], io)).toBe(0);
    const report = JSON.parse(io.lines.join('\n'));
    expect(report).toMatchObject({ backend: 'wasm', tfjsBackend: 'wasm', node: process.version });
    expect(report.threads).toBeGreaterThanOrEqual(1);
    expect(report.matmul.gflops).toBeGreaterThan(0);
  });

  it('prints a readable summary', async () => {
    const io = capture();
    expect(await doctorCommand.run(['--backend', 'cpu', '--size', '32'], io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/backend\s+cpu[\s\S]*threads\s+1[\s\S]*GFLOP\/s[\s\S]*node\s+v\d+/);
  });

  it('exits 1 naming a requested backend that cannot load', async () => {
    const io = capture();
    let installed = true;
    try {
      createRequire(import.meta.url).resolve('@tensorflow/tfjs-node-gpu');
    } catch {
      installed = false;
    }
    if (installed) return;
    expect(await doctorCommand.run(['--backend', 'node-gpu'], io)).toBe(1);
    expect(io.errors.join('\n')).toMatch(/"node-gpu" was requested/);
  });
});
