/**
 * Starts `crane serve` (browser mode) as a child process and waits for the tokened URL it
 * prints. Used by `npm start` and by the e2e `web` project.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { engineProcessEnv } from '../../electron/main/engine-launch.ts';

export interface ServeProcess {
  /** The URL with the session token: the only way in. */
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export interface ServeProcessOptions {
  readonly root: string;
  readonly uiDir: string;
  /** Lines the server prints (stdout and stderr), e.g. to echo them. */
  readonly onLine?: (line: string) => void;
  readonly timeoutMs?: number;
  /** Default 0: the server picks a free port and prints it, so parallel runs never collide. */
  readonly port?: number;
  /** The session token to accept (a restart passes the previous run's); default a fresh one. */
  readonly token?: string;
}

export function startServeProcess({ root, uiDir, onLine, timeoutMs = 60_000, port = 0, token }: ServeProcessOptions): Promise<ServeProcess> {
  const child = spawn(process.execPath, [join(root, 'bin', 'crane.mjs'), 'serve', '--port', String(port), '--ui', uiDir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    // The token in the environment, not the arguments: other users can list a process's arguments.
    env: engineProcessEnv(token === undefined ? process.env : { ...process.env, CRANE_SESSION_TOKEN: token }, process.platform),
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`crane serve printed no URL within ${timeoutMs} ms`));
    }, timeoutMs);
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        onLine?.(line);
        const url = /^Open: (\S+)/.exec(line)?.[1];
        if (url !== undefined) {
          clearTimeout(timer);
          resolve({ url, child, stop });
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`crane serve exited (code ${code}) before printing its URL`));
    });
  });
}
