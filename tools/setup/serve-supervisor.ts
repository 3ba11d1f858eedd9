/**
 * Browser mode's engine restart. There `crane serve` is the engine: when it dies (a crash, an
 * out-of-memory kill) it is started again on the same port with the same session token, so an
 * open page keeps its cookie and reconnects by itself, project included (the page re-opens it).
 * The token is made here, once per supervisor (one `npm start` run), and never written to disk.
 *
 *   superviseServe(options) → SupervisedServe    once the first crane serve has printed its URL
 *
 * A server that keeps dying within a minute of starting is given up after `maxRestarts` tries.
 */
import { createSessionToken } from '../../engine/server/session-token.ts';
import { startServeProcess, type ServeProcess, type ServeProcessOptions } from './serve-process.ts';

export interface SupervisedServe {
  /** The same for every restart: origin and token do not change. */
  readonly url: string;
  /** The crane serve running now (a new one after each restart). */
  current(): ServeProcess;
  /** Resolves with an exit code once stopped, or once restarting is given up. */
  readonly ended: Promise<number>;
  stop(): Promise<void>;
}

export interface SuperviseOptions extends Omit<ServeProcessOptions, 'port' | 'token'> {
  /** Told why, before each restart and when giving up. */
  readonly onRestart?: (line: string) => void;
  readonly maxRestarts?: number;
}

/** A server that ran this long before dying was working: its restart count starts over. */
const STABLE_MS = 60_000;

export async function superviseServe(options: SuperviseOptions): Promise<SupervisedServe> {
  const { onRestart = () => undefined, maxRestarts = 5 } = options;
  const token = createSessionToken();
  let server = await startServeProcess({ ...options, token });
  const port = Number(new URL(server.url).port);
  let stopping = false;
  let quickRestarts = 0;

  const ended = new Promise<number>((resolve) => {
    const watch = (running: ServeProcess, startedAt: number) => {
      running.child.once('exit', (code, signal) => {
        if (stopping) return resolve(0);
        quickRestarts = Date.now() - startedAt >= STABLE_MS ? 0 : quickRestarts + 1;
        if (quickRestarts > maxRestarts) {
          onRestart(`crane serve exited ${maxRestarts + 1} times in a row within a minute of starting; not restarting it again`);
          return resolve(code ?? 1);
        }
        onRestart(`crane serve exited (${signal ?? `code ${code}`}); starting it again on port ${port} with the same session, so open pages reconnect`);
        startServeProcess({ ...options, port, token }).then(
          (next) => {
            server = next;
            // Stopped while this restart was under way.
            if (stopping) void next.stop().then(() => resolve(0));
            else watch(next, Date.now());
          },
          (error: unknown) => {
            onRestart(`crane serve could not be restarted: ${error instanceof Error ? error.message : String(error)}`);
            resolve(1);
          },
        );
      });
    };
    watch(server, Date.now());
  });

  return {
    url: server.url,
    current: () => server,
    ended,
    stop: async () => {
      stopping = true;
      await server.stop();
    },
  };
}
