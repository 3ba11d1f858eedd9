/** `crane serve`: browser mode — the studio UI and the engine protocol over HTTP + WebSocket. */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { EngineSession } from '../handlers/engine-session.ts';
import { defaultDataDir } from '../project/data-dir.ts';
import { ensureDemoProject } from '../project/demo-project.ts';
import { isLoopback } from '../server/bind-address.ts';
import { isSessionToken } from '../server/session-token.ts';
import { createEngineHandlers } from '../handlers/engine-handlers.ts';
import { startServer } from '../server/serve.ts';
import { UsageError, type CliCommand } from './command.ts';

// Where `vite build` (vite.config.ts) puts the renderer: dist/renderer of this checkout.
const DEFAULT_UI_DIR = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

const HELP = `Usage: crane serve [--host ADDR] [--port N] [--ui DIR] [--data-dir DIR]

Serve the studio UI and the engine (WebSocket at /engine) to a browser, and print the URL to
open. Every request must carry the session token in that URL (the browser keeps it in a cookie
after the first load); pages from other origins cannot talk to the engine. Stop with Ctrl-C.
When the demo pair is built (assets/demo), its project is opened, so the UI starts on it.

Options:
  --host ADDR   address to bind (default 127.0.0.1). Any other address exposes the engine to
                the network with only the token to guard it; prefer an SSH tunnel.
  --port N      port to listen on (default 0: any free port)
  --ui DIR      the renderer build to serve (default: dist/renderer of this checkout)
  --data-dir DIR  where projects without a folder of their own live, the demo project among
                them (default: $CRANE_DATA_DIR, else the user's data folder, e.g.
                ~/.local/share/crane-studio)
  -h, --help

Environment:
  CRANE_SESSION_TOKEN  the session token to accept (at least 43 base64url characters) instead of
                a fresh one. A supervisor that restarts crane serve passes the previous run's
                token and --port, so open pages keep their cookie and reconnect by themselves
                (npm start does this). An environment variable, not a flag: other users can read
                a process's arguments.`;

export interface ServeArgs {
  readonly host: string;
  readonly port: number;
  readonly uiDir: string;
  readonly dataDir?: string;
  readonly token?: string;
}

export function parseServeArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ServeArgs {
  const { values } = parseArgs({
    args: [...args],
    options: { host: { type: 'string' }, port: { type: 'string' }, ui: { type: 'string' }, 'data-dir': { type: 'string' } },
  });
  const port = Number(values.port ?? '0');
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535 (got ${values.port})`);
  // An empty host would make listen() bind every interface.
  if (values.host === '') throw new UsageError('--host must name an address');
  const uiDir = values.ui === undefined ? DEFAULT_UI_DIR : resolve(values.ui);
  const dataDir = values['data-dir'];
  const token = env['CRANE_SESSION_TOKEN'];
  if (token !== undefined && !isSessionToken(token)) throw new UsageError('CRANE_SESSION_TOKEN must be at least 43 base64url characters (256 bits)');
  return {
    host: values.host ?? '127.0.0.1',
    port,
    uiDir,
    ...(dataDir === undefined ? {} : { dataDir: resolve(dataDir) }),
    ...(token === undefined ? {} : { token }),
  };
}

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'browser mode: serve the studio UI and the engine on 127.0.0.1 behind a session token',
  help: HELP,
  run: async (args, io) => {
    const options = parseServeArgs(args);
    if (!isLoopback(options.host)) {
      io.err(`crane serve: WARNING: binding ${options.host} makes the engine reachable from the network; only the session token guards it.`);
    }
    const dataDir = options.dataDir ?? defaultDataDir();
    const session = new EngineSession();
    const demo = await ensureDemoProject(dataDir).catch((error: unknown) => {
      io.err(`crane serve: the demo project could not be prepared in ${dataDir}: ${(error as Error).message}`);
      return null;
    });
    if (demo !== null) await session.open(demo);
    const handlers = createEngineHandlers({ session, dataDir });
    const server = await startServer({ ...options, handlers, log: io.err });
    io.out(`CRANE Studio engine listening on ${server.origin} (UI from ${options.uiDir})`);
    io.out(demo === null ? 'No demo pair built (npm run demo:train): open a pair or a project from the UI.' : `Opened the demo project: ${demo}`);
    io.out(`Open: ${server.url}`);
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    await server.close();
    return 0;
  },
};
