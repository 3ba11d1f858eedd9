/**
 * Owns the engine's utility process: starts it, hands out ports to it, notices when it dies and
 * starts a fresh one on request (reporting the replaced one as exited). The project lives in the renderer's state and on disk (the
 * analysis cache), so a restart loses only the requests that were running; the UI re-issues them.
 *
 * Electron is reached through the small `EngineProcessApi` (wired in main.ts), so this logic is
 * unit-tested with fakes.
 */
export type EngineStatus =
  | { readonly state: 'starting' }
  | { readonly state: 'running' }
  | { readonly state: 'exited'; readonly reason: string; readonly exitCode: number | null };

export interface ChildLike<Port> {
  readonly pid: number | undefined;
  postMessage(message: unknown, transfer: Port[]): void;
  once(event: 'spawn', listener: () => void): unknown;
  once(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

export interface PortPair<Port> {
  /** Goes to the engine. */
  readonly enginePort: Port;
  /** Goes to the window. */
  readonly windowPort: Port;
}

export interface EngineProcessApi<Port> {
  fork(): ChildLike<Port>;
  channel(): PortPair<Port>;
}

export class EngineSupervisor<Port> {
  private child: ChildLike<Port> | undefined;
  private status: EngineStatus = { state: 'exited', reason: 'not started', exitCode: null };
  private ready: Promise<boolean> = Promise.resolve(false);

  constructor(
    private readonly api: EngineProcessApi<Port>,
    private readonly onStatus: (status: EngineStatus) => void,
  ) {}

  get current(): EngineStatus {
    return this.status;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    if (this.child !== undefined) return;
    const child = this.api.fork();
    this.child = child;
    this.setStatus({ state: 'starting' });
    this.ready = new Promise((resolve) => {
      child.once('spawn', () => {
        if (this.child === child) this.setStatus({ state: 'running' });
        resolve(true);
      });
      child.once('exit', (code) => {
        resolve(false);
        // An old process that we replaced on purpose reports nothing.
        if (this.child !== child) return;
        this.child = undefined;
        this.setStatus({ state: 'exited', reason: describeExit(code), exitCode: code });
      });
    });
  }

  /**
   * A new channel: one end to the engine, the other returned for the window. Undefined when no
   * engine is running (the window has just been told so by the status it got).
   */
  async connect(): Promise<Port | undefined> {
    const child = this.child;
    if (child === undefined || !(await this.ready) || this.child !== child) return undefined;
    const { enginePort, windowPort } = this.api.channel();
    child.postMessage({ type: 'connect' }, [enginePort]);
    return windowPort;
  }

  /**
   * Replaces the engine process (running or dead) with a fresh one. A replaced live process is
   * reported as exited (code null) at once — its own exit event is ignored — so the page drops
   * the port that led to it and asks for a new one, which the fresh process answers.
   */
  restart(): void {
    const replacing = this.child !== undefined;
    this.stop();
    if (replacing) this.setStatus({ state: 'exited', reason: RESTARTED, exitCode: null });
    this.start();
  }

  stop(): void {
    const child = this.child;
    this.child = undefined;
    child?.kill();
  }

  private setStatus(status: EngineStatus): void {
    this.status = status;
    this.onStatus(status);
  }
}

export const RESTARTED = 'the engine was restarted';

function describeExit(code: number): string {
  // The code is the raw waitpid/GetExitCodeProcess value, so it is reported, not interpreted.
  return code === 0 ? 'the engine process exited' : `the engine process stopped unexpectedly (exit code ${code})`;
}
