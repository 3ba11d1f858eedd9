/**
 * Does tfjs-backend-wasm's threaded SIMD build pay off under Node? Matmul GFLOP/s of the
 * single-threaded SIMD build (what the engine uses) and of the threaded build, each in its own
 * process (a process loads one wasm module), in one run.
 *
 * tfjs refuses threads under Node (WASM_HAS_MULTITHREAD_SUPPORT is false there) and, when forced,
 * starts its pthread pool from blob: URLs, which Node's Worker cannot load. The package ships
 * both pieces on disk (wasm-out/: the pthread worker's script text and the Emscripten glue), so
 * the child here installs a Worker class that runs the script text and points the pool's
 * 'load' message at the glue file. tfjs then sizes XNNPACK's pool as min(N, 8, CPUs / 2) — on a
 * 2-CPU machine that is 1 thread — so the child also reports as many CPUs to tfjs as N needs.
 * This is an experiment, not an engine path: the engine stays single-threaded per worker and
 * gets its parallelism from gradient worker threads (pipeline/gradient-worker-pool.ts).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { parseCli } from './cli-args.ts';

const { values } = parseCli({
  usage: ['node --import tsx tools/bench-wasm-threads.ts [--threads N] [--sizes 256,512,1024]'],
  options: {
    threads: { type: 'string', value: 'N', default: String(os.availableParallelism()), help: "XNNPACK threads of the threaded build; the default is this machine's CPU count:" },
    sizes: { type: 'string', value: 'LIST', default: '256,512,1024', help: 'square matmul sizes, comma-separated' },
    child: { type: 'string', value: 'THREADS', help: 'measure one build in this process: the bench starts these' },
  },
});

interface ChildResult {
  readonly threads: number;
  readonly rows: { size: number; gflops: number; cpuPerWall: number }[];
}

if (values.child === undefined) {
  const run = (threads: number): ChildResult => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', String(threads), '--sizes', values.sizes], { encoding: 'utf8' })) as ChildResult;
  const single = run(1);
  const threaded = run(Number(values.threads));
  console.log(`${os.availableParallelism()} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; threaded build ran ${threaded.threads} XNNPACK threads`);
  for (const [i, row] of single.rows.entries()) {
    const t = threaded.rows[i] as ChildResult['rows'][number];
    console.log(`${row.size}²: single ${row.gflops.toFixed(1)} GFLOP/s (CPU/wall ${row.cpuPerWall.toFixed(2)}), threaded ${t.gflops.toFixed(1)} GFLOP/s (CPU/wall ${t.cpuPerWall.toFixed(2)}), ratio ${(t.gflops / row.gflops).toFixed(2)}×`);
  }
} else {
  console.log(JSON.stringify(await measureChild(Number(values.child), values.sizes.split(',').map(Number))));
  // The threaded module's pthread workers keep the event loop alive.
  process.exit(0);
}

async function measureChild(threads: number, sizes: number[]): Promise<ChildResult> {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const { measureMatmulGflops } = await import('../engine/tensor/matmul-bench.ts');
  const { wasmDistDir } = await import('../engine/tensor/backend.ts');
  if (threads > 1) enableThreadsUnderNode(threads);
  wasm.setThreadsCount(threads);
  wasm.setWasmPaths(wasmDistDir());
  if (threads > 1) tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', true);
  await tf.setBackend('wasm');
  await tf.ready();
  const rows = sizes.map((size) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const { gflops } = measureMatmulGflops({ size, runs: 7 });
    const used = process.cpuUsage(cpu);
    return { size, gflops, cpuPerWall: (used.user + used.system) / 1000 / (performance.now() - started) };
  });
  return { threads: wasm.getThreadsCount(), rows };
}

/** The Node shim described above: pthread workers from the package's files on disk. */
function enableThreadsUnderNode(threads: number): void {
  const outDir = join(dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm')), '..', 'wasm-out');
  const require = createRequire(import.meta.url);
  const { wasmWorkerContents } = require(join(outDir, 'tfjs-backend-wasm-threaded-simd.worker.js')) as { wasmWorkerContents: string };
  // The script text holds "\n" escapes inside string literals; tfjs escapes them the same way for its Blob.
  const script = wasmWorkerContents.replace(/\n/g, '\\n');
  const glue = join(outDir, 'tfjs-backend-wasm-threaded-simd.js');
  class PthreadWorker extends Worker {
    constructor(url: string | URL, options?: WorkerOptions) {
      const blob = String(url).startsWith('blob:');
      super(blob ? script : url, blob ? { ...options, eval: true } : options);
    }

    override postMessage(message: unknown, transfer?: Parameters<Worker['postMessage']>[1]): void {
      const load = message as { cmd?: unknown; urlOrBlob?: unknown };
      super.postMessage(load.cmd === 'load' && load.urlOrBlob instanceof Blob ? { ...load, urlOrBlob: glue } : message, transfer);
    }
  }
  // Emscripten assigns worker_threads' Worker to the global when it starts; keep ours in place.
  Object.defineProperty(globalThis, 'Worker', { configurable: true, get: () => PthreadWorker, set: () => undefined });
  const cpus = os.cpus();
  if (cpus.length < 2 * threads) {
    const cjsOs = require('node:os') as { cpus: () => os.CpuInfo[] };
    cjsOs.cpus = () => Array.from({ length: 2 * threads }, (_, i) => cpus[i % cpus.length] as os.CpuInfo);
  }
}
