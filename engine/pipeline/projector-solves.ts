/**
 * The projectors stage's eigen-solves (one per layer and key), each started as soon as the key's
 * rows are all in, on whichever of the two threads is free:
 *
 *   const solves = new ProjectorSolves({ maxRank, rankCut }, lane?)
 *   solves.add(key, gram)              // the key's accumulator is final
 *   await solves.finish(beforeEach?)   // → key → projector (undefined: the key gets none), every key added;
 *                                      //   beforeEach(solved so far) before each solve here (progress, cancel)
 *
 * While the forward lane still computes its part of the pass, a key is solved here at once (this
 * thread is then ahead of the lane, waiting for its copy of a layer). Once the lane is idle, keys
 * queue for it, one solve in flight at a time, and finish() has this thread take keys from the
 * other end of the queue until none is left. Both threads run projectorOfRows on the same arrays
 * (GramAccumulator.snapshot), so which one solved a key does not change a bit of its projector.
 */
import type { GramAccumulator } from '../crane/gram-accumulator.ts';
import { projectorOfRows, type GspProjector } from '../crane/gsp-projector.ts';
import type { ForwardLane } from './forward-lane.ts';
import type { SolveOptions } from './forward-lane-protocol.ts';

type Keyed = readonly [key: string, gram: GramAccumulator];

export class ProjectorSolves {
  private readonly results = new Map<string, GspProjector | undefined>();
  private readonly queued: Keyed[] = [];
  private inFlight: Promise<void> | undefined;
  private failure: { readonly error: unknown } | undefined;

  constructor(private readonly options: SolveOptions, private readonly lane?: ForwardLane) {}

  add(key: string, gram: GramAccumulator): void {
    if (this.lane === undefined || this.lane.computing) return this.solveHere([key, gram]);
    this.queued.push([key, gram]);
    this.feedLane();
  }

  /** Solves what is queued, here and on the lane. */
  async finish(beforeEach: (solved: number) => void = () => undefined): Promise<Map<string, GspProjector | undefined>> {
    for (;;) {
      this.throwIfFailed();
      const last = this.queued.pop();
      if (last !== undefined) {
        beforeEach(this.results.size);
        this.solveHere(last);
        // Lets the lane's answer in, so it gets its next key before this thread takes another.
        await new Promise((resolve) => setImmediate(resolve));
      } else if (this.inFlight !== undefined) await this.inFlight;
      else break;
    }
    this.throwIfFailed();
    return this.results;
  }

  private solveHere([key, gram]: Keyed): void {
    this.results.set(key, projectorOfRows(gram, this.options));
  }

  private feedLane(): void {
    const lane = this.lane;
    if (lane === undefined || this.inFlight !== undefined || this.failure !== undefined) return;
    const next = this.queued.shift();
    if (next === undefined) return;
    const [key, gram] = next;
    this.inFlight = lane.solve(gram.snapshot(), this.options).then(
      (projector) => {
        this.results.set(key, projector);
        this.inFlight = undefined;
        this.feedLane();
      },
      (error: unknown) => {
        this.failure ??= { error };
        this.inFlight = undefined;
      },
    );
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }
}
