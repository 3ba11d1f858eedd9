/**
 * A worker's source: through tsx from the sources (no CRANE_BUILT_WORKERS, as under vitest), the
 * built file in a bundle that defines the map, and a refusal for a module the bundle lacks.
 * vi.stubGlobal stands in for the build's define: both are what `typeof CRANE_BUILT_WORKERS` sees.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { workerSource } from './worker-bootstrap.ts';

const WORKER = new URL('./gates-worker.ts', import.meta.url);
const BUILT = 'file:///checkout/dist/engine/workers/gates-worker.mjs';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('workerSource', () => {
  it('registers tsx, then imports the TypeScript module, when run from the sources', () => {
    const source = workerSource(WORKER);
    expect(source).toContain(JSON.stringify(import.meta.resolve('tsx/esm/api')));
    expect(source).toContain('tsx.register()');
    expect(source).toContain(`import(${JSON.stringify(WORKER.href)})`);
  });

  it('imports the built file alone in a bundle', () => {
    vi.stubGlobal('CRANE_BUILT_WORKERS', { [WORKER.href]: BUILT });
    expect(workerSource(WORKER)).toBe(`import(${JSON.stringify(BUILT)});`);
  });

  it('refuses a module the bundle does not hold, naming it', () => {
    vi.stubGlobal('CRANE_BUILT_WORKERS', { [WORKER.href]: BUILT });
    const other = new URL('./delta-worker.ts', import.meta.url);
    expect(() => workerSource(other)).toThrow(`${other.href} is not a worker module of this engine build`);
  });
});
