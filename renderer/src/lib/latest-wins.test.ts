import { describe, expect, it } from 'vitest';
import { latestWins } from './latest-wins.ts';

describe('latestWins', () => {
  it('keeps one request in flight and sends only the newest value next', async () => {
    const sent: number[] = [];
    const results: number[] = [];
    const gates: (() => void)[] = [];
    const queue = latestWins(
      (v: number) => {
        sent.push(v);
        return new Promise<number>((resolve) => gates.push(() => resolve(v * 10)));
      },
      { onResult: (r) => results.push(r), onError: () => undefined },
    );
    for (let v = 1; v <= 5; v++) queue.request(v);
    expect(sent).toEqual([1]);
    gates.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toEqual([1, 5]);
    gates.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
    expect(results).toEqual([10, 50]);
    expect(queue.busy).toBe(false);
  });

  it('reports errors and carries on', async () => {
    const errors: unknown[] = [];
    const queue = latestWins((v: number) => (v === 1 ? Promise.reject(new Error('x')) : Promise.resolve(v)), {
      onResult: () => undefined,
      onError: (e) => errors.push(e),
    });
    queue.request(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(errors).toHaveLength(1);
  });
});
