import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { EngineSupervisor, RESTARTED, type ChildLike, type EngineStatus } from './engine-supervisor.ts';

class FakeChild extends EventEmitter implements ChildLike<string> {
  static count = 0;
  readonly pid = ++FakeChild.count;
  readonly posted: Array<[unknown, string[]]> = [];
  killed = false;
  postMessage(message: unknown, transfer: string[]): void {
    this.posted.push([message, transfer]);
  }
  kill(): boolean {
    this.killed = true;
    queueMicrotask(() => this.emit('exit', 15));
    return true;
  }
}

function setup() {
  const children: FakeChild[] = [];
  const statuses: EngineStatus[] = [];
  let channels = 0;
  const supervisor = new EngineSupervisor<string>(
    {
      fork: () => {
        const child = new FakeChild();
        children.push(child);
        return child;
      },
      channel: () => {
        channels++;
        return { enginePort: `engine-${channels}`, windowPort: `window-${channels}` };
      },
    },
    (status) => statuses.push(status),
  );
  return { supervisor, children, statuses };
}

describe('EngineSupervisor', () => {
  it('hands one end of a new channel to the engine and returns the other for the window', async () => {
    const { supervisor, children, statuses } = setup();
    supervisor.start();
    const port = supervisor.connect();
    children[0]?.emit('spawn');
    expect(await port).toBe('window-1');
    expect(children[0]?.posted).toEqual([[{ type: 'connect' }, ['engine-1']]]);
    expect(statuses.map((s) => s.state)).toEqual(['starting', 'running']);
  });

  it('reports a crash, gives no port while dead, and restarts with a fresh process and port', async () => {
    const { supervisor, children, statuses } = setup();
    supervisor.start();
    children[0]?.emit('spawn');
    children[0]?.emit('exit', 9);
    expect(statuses.at(-1)).toEqual({ state: 'exited', reason: expect.stringContaining('exit code 9'), exitCode: 9 });
    expect(await supervisor.connect()).toBeUndefined();
    supervisor.restart();
    children[1]?.emit('spawn');
    expect(await supervisor.connect()).toBe('window-1');
    expect(children[1]?.posted).toHaveLength(1);
    expect(statuses.map((s) => s.state)).toEqual(['starting', 'running', 'exited', 'starting', 'running']);
  });

  it('a deliberate restart reports the old process as restarted (no crash), then a fresh start whose port comes from the new process', async () => {
    const { supervisor, children, statuses } = setup();
    supervisor.start();
    children[0]?.emit('spawn');
    supervisor.restart();
    await Promise.resolve();
    expect(children[0]?.killed).toBe(true);
    expect(statuses.slice(2)).toEqual([{ state: 'exited', reason: RESTARTED, exitCode: null }, { state: 'starting' }]);
    expect(supervisor.pid).toBe(children[1]?.pid);
    const port = supervisor.connect();
    children[1]?.emit('spawn');
    expect(await port).toBe('window-1');
    expect(children[0]?.posted).toEqual([]);
    expect(children[1]?.posted).toEqual([[{ type: 'connect' }, ['engine-1']]]);
  });

  it('restarting a dead engine reports no second exit', () => {
    const { supervisor, children, statuses } = setup();
    supervisor.start();
    children[0]?.emit('exit', 9);
    supervisor.restart();
    expect(statuses.map((s) => s.state)).toEqual(['starting', 'exited', 'starting']);
  });

  it('gives no port when the engine dies before it spawned', async () => {
    const { supervisor, children } = setup();
    supervisor.start();
    const port = supervisor.connect();
    children[0]?.emit('exit', 1);
    expect(await port).toBeUndefined();
  });
});
