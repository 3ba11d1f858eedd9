/**
 * `npm start`: build what is stale, then open the studio — the Electron app when an Electron
 * binary is installed and a display exists, otherwise browser mode (`crane serve`) with its
 * tokened URL printed and, where a desktop is available, opened. The demo pair is opened when it
 * has been built. Every decision is printed. In browser mode a `crane serve` that dies is started
 * again on the same port and session token (setup/serve-supervisor.ts): the page reconnects.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { builtEngineState } from '../bin/engine-build-state.mjs';
import { parseCli } from './cli-args.ts';
import { buildElectron, ROOT } from './setup/build-electron.ts';
import { buildEngine } from './setup/build-engine.ts';
import { superviseServe } from './setup/serve-supervisor.ts';
import { findDemoPair, hasDisplay, planStart, rendererIsStale } from './setup/start-plan.ts';

const UI_DIR = join(ROOT, 'dist', 'renderer');
const { values: args } = parseCli({
  usage: ['npm start -- [--browser] [--no-open]'],
  options: {
    browser: { type: 'boolean', help: 'browser mode (`crane serve`) even where the Electron app could open' },
    'no-open': { type: 'boolean', help: 'in browser mode, print the URL without opening a browser on it' },
  },
});
const say = (line: string) => console.log(`[start] ${line}`);

/** The electron package exports its binary's path, and throws when the binary is missing. */
function electronBinary(): string | undefined {
  try {
    const path: unknown = createRequire(import.meta.url)('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

function buildRenderer(): void {
  if (!rendererIsStale(ROOT)) return say('Renderer build is up to date (dist/renderer).');
  say('Building the renderer (vite build → dist/renderer)…');
  const result = spawnSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) throw new Error('the renderer build failed (see above)');
}

/** Browser mode's `crane serve` starts faster from dist/engine; without it, it runs the sources. */
async function buildEngineIfStale(): Promise<void> {
  const state = builtEngineState(ROOT);
  if (state.fresh) return say('Engine build is up to date (dist/engine).');
  say(`Building the engine (${state.reason}) → dist/engine…`);
  await buildEngine().catch((error: unknown) => say(`The engine build failed (${error instanceof Error ? error.message : String(error)}); crane serve runs the sources.`));
}

async function startElectron(binary: string, demo: ReturnType<typeof findDemoPair>): Promise<number> {
  const pairArgs = demo === undefined ? [] : ['--instruct', demo.instruct, '--thinking', demo.thinking];
  // ROOT, not the bundle: Electron then reads package.json ("main", app name, userData folder).
  const child = spawn(binary, [ROOT, ...pairArgs], { cwd: ROOT, stdio: 'inherit' });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code ?? 1;
}

async function startBrowser(demo: ReturnType<typeof findDemoPair>): Promise<number> {
  // Restarted on the same port and token if it dies, so the open page reconnects by itself.
  const server = await superviseServe({ root: ROOT, uiDir: UI_DIR, timeoutMs: 120_000, onLine: (line) => console.log(line), onRestart: say });
  // The UI reads the pair to open from the query; the token stays the only credential.
  const url = new URL(server.url);
  if (demo !== undefined) {
    url.searchParams.set('instruct', demo.instruct);
    url.searchParams.set('thinking', demo.thinking);
  }
  say(`Browser mode is running. Open this URL (it carries the session token): ${url.href}`);
  if (args['no-open'] !== true && hasDisplay(process.platform, process.env)) {
    const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    const child = spawn(opener, [url.href], { stdio: 'ignore', detached: true });
    child.on('error', () => say(`Could not run ${opener}; open the URL above yourself.`));
    child.unref();
    say(`Asked ${opener} to open it in your browser.`);
  } else {
    say('No desktop to open a browser on: open the URL above (e.g. through an SSH tunnel). Stop with Ctrl-C.');
  }
  const stop = () => void server.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return server.ended;
}

async function main(): Promise<number> {
  const demo = findDemoPair(ROOT);
  const plan = planStart({ electronBinary: electronBinary(), platform: process.platform, env: process.env, forceBrowser: args.browser === true, demoPair: demo });
  buildRenderer();
  if (plan.host === 'electron') {
    say('Building the Electron main/preload/engine bundles → dist/electron…');
    await buildElectron();
  } else {
    await buildEngineIfStale();
  }
  plan.notes.forEach(say);
  const binary = electronBinary();
  return plan.host === 'electron' && binary !== undefined ? startElectron(binary, demo) : startBrowser(demo);
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`[start] failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
