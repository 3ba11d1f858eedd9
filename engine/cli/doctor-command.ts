/** `crane doctor [--json] [--backend NAME]`: which tfjs backend the engine runs on, and how fast. */
import { parseArgs } from 'node:util';
import { BackendError, initBackend, parseBackendName, type BackendInfo } from '../tensor/backend.ts';
import { measureMatmulGflops, type MatmulBenchResult } from '../tensor/matmul-bench.ts';
import { UsageError, type CliCommand } from './command.ts';

const HELP = `Usage: crane doctor [--json] [--backend NAME] [--size N]

Loads the best TensorFlow.js backend (tfjs-node-gpu → tfjs-node → wasm → cpu, the first that
loads; CRANE_BACKEND or --backend forces one) and prints it with its thread count, the measured
matmul throughput (median of timed N×N products, default N=512) and the Node.js version.

Options:
  --backend NAME   node-gpu | node | wasm | cpu (overrides CRANE_BACKEND)
  --size N         matmul side for the throughput measurement (default 512)
  --json           machine-readable output
  -h, --help`;

export interface DoctorReport {
  readonly backend: string;
  readonly tfjsBackend: string;
  readonly threads: number;
  readonly matmul: MatmulBenchResult;
  readonly node: string;
  readonly skipped: readonly string[];
}

export async function runDoctor(backend: string | undefined, size: number): Promise<DoctorReport> {
  const info: BackendInfo = await initBackend(backend === undefined ? undefined : parseBackendName(backend, '--backend'));
  const matmul = measureMatmulGflops({ size });
  return { backend: info.name, tfjsBackend: info.tfName, threads: info.threads, matmul, node: process.version, skipped: info.skipped };
}

export function formatDoctor(report: DoctorReport): string {
  return [
    `backend   ${report.backend} (tfjs "${report.tfjsBackend}")`,
    `threads   ${report.threads}`,
    `matmul    ${report.matmul.gflops.toFixed(1)} GFLOP/s (${report.matmul.size}×${report.matmul.size}, median ${(report.matmul.seconds * 1000).toFixed(2)} ms)`,
    `node      ${report.node}`,
    ...report.skipped.map((s) => `skipped   ${s}`),
  ].join('\n');
}

export const doctorCommand: CliCommand = {
  name: 'doctor',
  summary: 'report the compute backend, its threads and measured matmul GFLOP/s',
  help: HELP,
  run: async (args, io) => {
    const { values } = parseArgs({
      args: [...args],
      options: { json: { type: 'boolean' }, backend: { type: 'string' }, size: { type: 'string' } },
    });
    const size = values.size === undefined ? 512 : Number(values.size);
    if (!Number.isInteger(size) || size < 1 || size > 8192) throw new UsageError('--size must be an integer from 1 to 8192');
    let report: DoctorReport;
    try {
      report = await runDoctor(values.backend, size);
    } catch (error) {
      if (!(error instanceof BackendError)) throw error;
      io.err(`crane doctor: ${error.message}`);
      return 1;
    }
    io.out(values.json === true ? JSON.stringify(report, null, 2) : formatDoctor(report));
    return 0;
  },
};
