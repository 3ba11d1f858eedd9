#!/usr/bin/env node
// Entry point of the `crane` command. It runs the built engine (dist/engine, `npm run
// build:engine`) while that build is fresh — no source changed since — and otherwise registers
// the TypeScript loader and runs the sources: a stale bundle never runs. CRANE_ENGINE=source or
// built forces one (built refuses a missing or stale build, naming why, with exit code 2).
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { builtEngineState } from './engine-build-state.mjs';

/** The built CLI's file, undefined for the sources, or a refusal's text. */
function chooseEngine(wanted) {
  if (!['', 'source', 'built'].includes(wanted)) return { refused: `CRANE_ENGINE must be "source" or "built" (or unset), not "${wanted}"` };
  if (wanted === 'source') return {};
  const state = builtEngineState(fileURLToPath(new URL('..', import.meta.url)));
  if (state.fresh) return { cli: state.cli };
  return wanted === 'built' ? { refused: `CRANE_ENGINE=built, but the built engine cannot run: ${state.reason}. Run \`npm run build:engine\`.` } : {};
}

async function loadMain({ cli }) {
  if (cli !== undefined) return (await import(pathToFileURL(cli).href)).main;
  const { register } = await import('tsx/esm/api');
  register();
  return (await import('../engine/cli/main.ts')).main;
}

const engine = chooseEngine(process.env.CRANE_ENGINE ?? '');
if (engine.refused === undefined) {
  const main = await loadMain(engine);
  process.exitCode = await main(process.argv.slice(2));
} else {
  console.error(`crane: ${engine.refused}`);
  process.exitCode = 2;
}
