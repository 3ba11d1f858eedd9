/**
 * The few pieces of the WebAssembly binary format that hand-written SIMD kernels need: one
 * exported memory, exported functions of i32 parameters and no results, and the instructions
 * those kernels use, by name.
 *
 *   const body = [...op.localGet(0), ...op.f64x2Add, …];
 *   const bytes = wasmModule([{ name: 'kernel', params: 6, locals: { i32: 3, v128: 8 }, body }]);
 *   const { memory, kernel } = instantiate(bytes)
 *   const instance = lazyKernel<Run>(() => function, pages)   a one-function module, compiled on first use
 *
 * Why by hand: the kernels are float64 loops whose summation order must equal the JS code they
 * replace (results bit-identical), which a general BLAS cannot promise, and the project adds no
 * compiler toolchain for a few dozen instructions. Encodings follow the WebAssembly 2.0 binary
 * format (SIMD opcodes are 0xfd plus a LEB128 number).
 */

export type Bytes = readonly number[];

/** Unsigned LEB128. */
export function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value >>> 0;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    out.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit integer. */
export function signedLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value | 0;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const I32 = 0x7f;
const F64 = 0x7c;
const V128 = 0x7b;
const VOID_BLOCK = 0x40;
const simd = (code: number): number[] => [0xfd, ...unsignedLeb(code)];
/** memarg: log2 of the alignment hint, then the constant byte offset. */
const memarg = (alignLog2: number, offset: number): number[] => [...unsignedLeb(alignLog2), ...unsignedLeb(offset)];

/** Instructions by name; loads and stores take the constant byte offset added to the address. */
export const op = {
  loop: [0x03, VOID_BLOCK],
  end: [0x0b],
  brIf: (depth: number) => [0x0d, ...unsignedLeb(depth)],
  localGet: (index: number) => [0x20, ...unsignedLeb(index)],
  localSet: (index: number) => [0x21, ...unsignedLeb(index)],
  localTee: (index: number) => [0x22, ...unsignedLeb(index)],
  i32Const: (value: number) => [0x41, ...signedLeb(value)],
  i32Add: [0x6a],
  i32Mul: [0x6c],
  i32LtU: [0x49],
  f64Load: (offset: number) => [0x2b, ...memarg(3, offset)],
  f64Store: (offset: number) => [0x39, ...memarg(3, offset)],
  f64Add: [0xa0],
  v128Load: (offset: number) => [...simd(0x00), ...memarg(3, offset)],
  /** Two float32 at the address into the low half, zeros above. */
  v128Load64Zero: (offset: number) => [...simd(0x5d), ...memarg(3, offset)],
  v128Load64Splat: (offset: number) => [...simd(0x0a), ...memarg(3, offset)],
  /** One float32 at the address in all four lanes. */
  v128Load32Splat: (offset: number) => [...simd(0x09), ...memarg(2, offset)],
  v128Store: (offset: number) => [...simd(0x0b), ...memarg(3, offset)],
  v128Zero: [...simd(0x0c), ...new Array<number>(16).fill(0)],
  f64x2Splat: simd(0x14),
  f64x2ExtractLane: (lane: 0 | 1) => [...simd(0x21), lane],
  f64x2PromoteLowF32x4: simd(0x5f),
  f64x2Lt: simd(0x49),
  v128And: simd(0x4e),
  f64x2Abs: simd(0xec),
  f64x2Neg: simd(0xed),
  f32x4Add: simd(0xe4),
  f32x4Mul: simd(0xe6),
  f64x2Add: simd(0xf0),
  f64x2Mul: simd(0xf2),
  f64x2Min: simd(0xf4),
  f64x2Max: simd(0xf5),
} as const;

export interface WasmFunction {
  readonly name: string;
  /** Number of i32 parameters (locals 0 … params−1). */
  readonly params: number;
  /** Extra locals after the parameters: the i32 ones first, then the f64 ones, then the v128 ones. */
  readonly locals: { readonly i32: number; readonly f64?: number; readonly v128: number };
  /** The instructions, without the final `end`. */
  readonly body: Bytes;
}

/** A module with one memory (exported as `memory`, `pages` × 64 KiB to start) and the functions, exported by name. */
export function wasmModule(functions: readonly WasmFunction[], pages = 1): Uint8Array {
  const types = functions.map((f) => [0x60, ...vector(new Array<number[]>(f.params).fill([I32])), 0x00]);
  const exports = [
    [...name('memory'), 0x02, 0x00],
    ...functions.map((f, index) => [...name(f.name), 0x00, ...unsignedLeb(index)]),
  ];
  const codes = functions.map((f) => {
    const locals = vector([[...unsignedLeb(f.locals.i32), I32], [...unsignedLeb(f.locals.f64 ?? 0), F64], [...unsignedLeb(f.locals.v128), V128]]);
    const code = [...locals, ...f.body, ...op.end];
    return [...unsignedLeb(code.length), ...code];
  });
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vector(types)),
    ...section(3, vector(functions.map((_, index) => unsignedLeb(index)))),
    ...section(5, vector([[0x00, ...unsignedLeb(pages)]])),
    ...section(7, vector(exports)),
    ...section(10, vector(codes)),
  ]);
}

/** A module's exported memory: what the kernels' callers use of it. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/**
 * The runtime's WebAssembly API, typed here: the project's TypeScript libraries (ES2023 and
 * Node's types, no DOM) declare no WebAssembly values.
 */
interface WebAssemblyApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> };
  validate(bytes: Uint8Array): boolean;
}

const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** Compiles and instantiates synchronously (the kernels are a few hundred bytes); the module's exports. */
export function instantiate(bytes: Uint8Array): Record<string, unknown> {
  return instances(bytes)();
}

/**
 * A module compiled once, whose instances (each with its own memory) share the compiled code —
 * and so its tier-up: a module compiled afresh per instance would start again in the baseline
 * compiler every time.
 */
export function instances(bytes: Uint8Array): () => Record<string, unknown> {
  const compiled = new webAssembly.Module(bytes);
  return () => new webAssembly.Instance(compiled).exports;
}

/** The unit of a module's memory size and of memory.grow. */
export const WASM_PAGE_BYTES = 65536;

/** A kernel: a module's one function and the memory it works in. */
export interface Kernel<Run> {
  readonly memory: WasmMemory;
  readonly run: Run;
}

/**
 * The kernel of a one-function module, built, compiled and kept on the first call (nothing at
 * import): what every hand-written kernel's caller needs, so none repeats it.
 */
export function lazyKernel<Run>(define: () => WasmFunction, pages = 1): () => Kernel<Run> {
  let kernel: Kernel<Run> | undefined;
  return () => {
    if (kernel === undefined) {
      const fn = define();
      const exports = instantiate(wasmModule([fn], pages));
      kernel = { memory: exports['memory'] as WasmMemory, run: exports[fn.name] as Run };
    }
    return kernel;
  };
}

export function isValidModule(bytes: Uint8Array): boolean {
  return webAssembly.validate(bytes);
}

function vector(items: readonly Bytes[]): number[] {
  return [...unsignedLeb(items.length), ...items.flat()];
}

function section(id: number, content: Bytes): number[] {
  return [id, ...unsignedLeb(content.length), ...content];
}

function name(text: string): number[] {
  const bytes = [...new TextEncoder().encode(text)];
  return [...unsignedLeb(bytes.length), ...bytes];
}
