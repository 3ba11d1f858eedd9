/**
 * Rendering a Jinja template with bounded time and memory.
 *
 *   renderBounded(template, context, limits?) → text; throws TemplateLimitError past a limit
 *
 * Chat templates come with checkpoints, i.e. from strangers, and one that loops 10⁸ times grew
 * to 3 GB. @huggingface/jinja renders synchronously and has no limits of its own, so a timer
 * cannot interrupt it and a worker thread per render would cost more than most renders. Instead
 * the interpreter is subclassed: every AST node evaluation goes through `evaluate` (the library
 * recurses through `this.evaluate`), and ours charges it against a budget before and after:
 *
 * - steps: one per node evaluated, so every loop iteration and call counts (bounds work);
 * - wall-clock time, checked at every step (a step can still be one slow built-in call);
 * - size of each value: characters of a string, items of a list, keys of a mapping;
 * - produced: the sum of those sizes (items weighted by their memory) over the render. Every
 *   text a loop or block appends was first returned by some evaluation, so the live strings and
 *   lists never exceed it.
 *
 * `range()` is replaced by one that refuses, before allocating, a list longer than the size
 * limit (the library's builds the whole list first). What stays unbounded: one built-in call
 * can allocate up to V8's largest string (~512 MB, e.g. `indent(10**9)`) before its result is
 * seen; V8 refuses anything larger itself, and the render then fails like any other.
 * The other globals are the library's: constants, raise_exception, and strftime_now, whose
 * formatting is borrowed by rendering a one-line template with it.
 */
import { Environment, Interpreter, Template } from '@huggingface/jinja';

/*
 * The library's declarations import './runtime' without an extension, which NodeNext resolution
 * cannot follow, so Environment and Interpreter arrive untyped. This is the surface used here.
 */
interface RuntimeValue {
  readonly type: string;
  readonly value: unknown;
}
interface JinjaEnvironment {
  set(name: string, value: unknown): RuntimeValue;
}
interface JinjaInterpreter {
  run(program: Template['parsed']): RuntimeValue;
  evaluate(statement: unknown, environment: JinjaEnvironment): RuntimeValue;
}
const EnvironmentClass = Environment as new () => JinjaEnvironment;
const InterpreterClass = Interpreter as new (env: JinjaEnvironment) => JinjaInterpreter;

export interface RenderLimits {
  /** AST node evaluations. */
  readonly maxSteps: number;
  /** Characters of any one string, the output included. */
  readonly maxStringLength: number;
  /** Items of any one list, keys of any one mapping. */
  readonly maxListLength: number;
  /** Estimated bytes of all values produced over the render: a bound on memory. */
  readonly maxProducedBytes: number;
  readonly maxMilliseconds: number;
}

/**
 * Measured: our template renders a 360-message chat with tools in ~17,500 steps, producing
 * ~10× its output's size; a 1.5 M-token chat is ~6 M characters. These limits leave ample room
 * for such inputs (20,000 messages) and stop a runaway within seconds and a few hundred MB (a
 * step costs 2–10 µs in this interpreter; a list item, a runtime object, ~ITEM_BYTES).
 */
export const DEFAULT_RENDER_LIMITS: RenderLimits = {
  maxSteps: 1_000_000,
  maxStringLength: 2 ** 25,
  maxListLength: 2 ** 18,
  maxProducedBytes: 2 ** 28,
  maxMilliseconds: 10_000,
};

const ITEM_BYTES = 64;

export class TemplateLimitError extends Error {
  override readonly name = 'TemplateLimitError';
}

const STRFTIME = new Template('{{ strftime_now(format) }}');

export function renderBounded(template: Template, context: Readonly<Record<string, unknown>>, limits: RenderLimits = DEFAULT_RENDER_LIMITS): string {
  const env = new EnvironmentClass();
  for (const [name, value] of Object.entries(PYTHON_CONSTANTS)) env.set(name, value);
  env.set('raise_exception', (message: unknown) => {
    throw new Error(String(message));
  });
  env.set('strftime_now', (format: unknown) => STRFTIME.render({ format: String(format) }));
  env.set('range', (start: number, stop?: number, step?: number) => boundedRange(start, stop, step, limits.maxListLength));
  for (const [name, value] of Object.entries(context)) env.set(name, value);
  const result = new BudgetedInterpreter(env, limits).run(template.parsed);
  return String(result.value);
}

const PYTHON_CONSTANTS = { true: true, false: false, none: null, True: true, False: false, None: null };

/** Python's range(stop) / range(start, stop[, step]), refused before allocation when too long. */
function boundedRange(first: number, second: number | undefined, third: number | undefined, maxLength: number): number[] {
  const [start, stop] = second === undefined ? [0, first] : [first, second];
  const step = third ?? 1;
  if (![start, stop, step].every(Number.isInteger)) throw new Error('range() takes integers');
  if (step === 0) throw new Error('range() step must not be zero');
  const length = Math.max(0, Math.ceil((stop - start) / step));
  if (length > maxLength) throw new TemplateLimitError(`range() of ${length} items is over the limit of ${maxLength}`);
  return Array.from({ length }, (_, i) => start + i * step);
}

class BudgetedInterpreter extends InterpreterClass {
  private steps = 0;
  private produced = 0;
  private readonly deadline: number;

  constructor(env: JinjaEnvironment, private readonly limits: RenderLimits) {
    super(env);
    this.deadline = performance.now() + limits.maxMilliseconds;
  }

  override evaluate(statement: unknown, environment: JinjaEnvironment): RuntimeValue {
    const { maxSteps, maxMilliseconds, maxStringLength, maxListLength, maxProducedBytes } = this.limits;
    if (++this.steps > maxSteps) throw new TemplateLimitError(`stopped after ${maxSteps} evaluation steps (a loop that runs away?)`);
    if (performance.now() > this.deadline) throw new TemplateLimitError(`stopped after ${maxMilliseconds / 1000} s`);
    const value = super.evaluate(statement, environment);
    const inner: unknown = value.value;
    if (typeof inner === 'string') {
      if (inner.length > maxStringLength) throw new TemplateLimitError(`a string grew to ${inner.length} characters, over the limit of ${maxStringLength}`);
      this.produced += inner.length;
    } else if (Array.isArray(inner) || inner instanceof Map) {
      const items = Array.isArray(inner) ? inner.length : inner.size;
      if (items > maxListLength) throw new TemplateLimitError(`a list grew to ${items} items, over the limit of ${maxListLength}`);
      this.produced += items * ITEM_BYTES;
    }
    if (this.produced > maxProducedBytes) throw new TemplateLimitError(`stopped after producing ~${maxProducedBytes} bytes of values in all`);
    return value;
  }
}
