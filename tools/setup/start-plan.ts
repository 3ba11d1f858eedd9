/**
 * The decisions behind `npm start`, kept apart from the processes it launches so they are tested:
 * which host to open (Electron when its binary is installed and a display exists, otherwise
 * browser mode), what to open in it (the demo pair when it has been built), and whether the
 * renderer build is stale.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface StartFacts {
  /** Path of the Electron binary if the electron package resolved to an existing file. */
  readonly electronBinary: string | undefined;
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly forceBrowser: boolean;
  readonly demoPair: { readonly instruct: string; readonly thinking: string } | undefined;
}

export interface StartPlan {
  readonly host: 'electron' | 'browser';
  /** One line each: why this host, what will be opened. Printed before launching. */
  readonly notes: string[];
}

export function hasDisplay(platform: NodeJS.Platform, env: StartFacts['env']): boolean {
  if (platform !== 'linux' && platform !== 'freebsd' && platform !== 'openbsd') return true;
  return Boolean(env['DISPLAY'] ?? env['WAYLAND_DISPLAY']);
}

export function planStart(facts: StartFacts): StartPlan {
  const notes: string[] = [];
  let host: StartPlan['host'] = 'browser';
  if (facts.forceBrowser) notes.push('--browser given: starting browser mode.');
  else if (facts.electronBinary === undefined) {
    notes.push('No Electron binary is installed (the optional `electron` package could not download it here): starting browser mode instead.');
  } else if (!hasDisplay(facts.platform, facts.env)) {
    notes.push('Electron is installed but there is no display (DISPLAY/WAYLAND_DISPLAY unset): starting browser mode instead.');
  } else {
    host = 'electron';
    notes.push(`Opening the desktop app (Electron at ${facts.electronBinary}).`);
  }
  notes.push(
    facts.demoPair === undefined
      ? 'The demo pair (assets/demo/instruct + assets/demo/thinking) is not built yet: opening with no pair loaded — open one from the UI.'
      : `Opening the demo pair: ${facts.demoPair.instruct} + ${facts.demoPair.thinking}.`,
  );
  return { host, notes };
}

/** Both demo checkpoint folders, if both exist with a config.json. */
export function findDemoPair(root: string): StartFacts['demoPair'] {
  const instruct = join(root, 'assets', 'demo', 'instruct');
  const thinking = join(root, 'assets', 'demo', 'thinking');
  const ready = (dir: string) => existsSync(join(dir, 'config.json'));
  return ready(instruct) && ready(thinking) ? { instruct, thinking } : undefined;
}

/** Newest modification time under the given files/folders (node_modules and dot-folders skipped). */
export function newestMtime(paths: readonly string[]): number {
  let newest = 0;
  const visit = (path: string) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (!stat.isDirectory()) {
      newest = Math.max(newest, stat.mtimeMs);
      return;
    }
    for (const entry of readdirSync(path)) {
      if (entry !== 'node_modules' && !entry.startsWith('.')) visit(join(path, entry));
    }
  };
  paths.forEach(visit);
  return newest;
}

/** The renderer build is missing, or older than anything it is built from. */
export function rendererIsStale(root: string): boolean {
  const built = join(root, 'dist', 'renderer', 'index.html');
  if (!existsSync(built)) return true;
  const sources = ['renderer', 'engine/protocol.ts', 'engine/protocol', 'vite.config.ts', 'package-lock.json'].map((p) => join(root, p));
  return newestMtime(sources) > statSync(built).mtimeMs;
}
