/**
 * Verify runs: one method, or every method in turn ("Verify all"), each cancellable. A result
 * carries the method it measured (with its settings), is added to the project's measured
 * results (the engine saves it in project.json) and is shown by measured-results.ts against the
 * settings on screen, so a result whose settings moved while it ran is labelled as such.
 */
import { METHOD_NAMES, methodUnavailable } from '../lib/merge-methods.ts';
import type { CallOptions, MergeMethodName, Params, Result } from '../protocol.ts';
import type { AppStore } from './app-store.ts';
import { methodOf } from './methods-slice.ts';
import { toErrorInfo } from './slice.ts';

type RunVerify = (params: Params<'verify'>, options: CallOptions) => Promise<Result<'verify'>>;

export class VerifyJobs {
  /** Which method's Verify is running, so 'verify' progress events find their row. */
  running: MergeMethodName | null = null;
  private abort: AbortController | null = null;
  private allCancelled = false;

  constructor(private readonly store: AppStore, private readonly call: RunVerify) {}

  async verify(method: MergeMethodName): Promise<void> {
    const s = this.store.getState();
    this.abort?.abort();
    const abort = (this.abort = new AbortController());
    this.running = method;
    s.setVerifyJob(method, { status: 'running', error: null, fraction: 0 });
    try {
      const result = await this.call({ method: methodOf(s, method) }, { signal: abort.signal });
      const st = this.store.getState();
      st.setVerifyJob(method, { status: 'idle', fraction: 1 });
      st.addMeasured(result);
    } catch (error) {
      const info = toErrorInfo(error);
      this.store.getState().setVerifyJob(method, info.code === 'cancelled' ? { status: 'cancelled', error: null } : { status: 'error', error: info });
    } finally {
      if (this.abort === abort) {
        this.abort = null;
        this.running = null;
      }
    }
  }

  /** Every method in turn; a cancel stops the running one and the rest. */
  async verifyAll(): Promise<void> {
    this.allCancelled = false;
    for (const method of METHOD_NAMES) {
      if (this.allCancelled) break;
      if (methodUnavailable(method, Boolean(this.store.getState().project.state.result?.project.base))) continue;
      await this.verify(method);
    }
  }

  cancel(): void {
    this.allCancelled = true;
    this.abort?.abort();
  }

  progress(fraction: number): void {
    if (this.running !== null) this.store.getState().setVerifyJob(this.running, { fraction });
  }
}
