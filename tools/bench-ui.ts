/**
 * Slider-to-paint latency of the studio, held to bounds (the e2e specs only print it): Playwright
 * drives Chromium against the built renderer served by `crane serve`, moves α and τ the way the
 * specs do (e2e/support/slider-session.ts) and prints the p95 of each chart next to its bound.
 *
 * Scenarios: the in-page synthetic engine at 48 layers × 128 experts per projection (the size of
 * Qwen3-30B-A3B), and the demo pair through the real engine, analysed first in a throw-away data
 * folder. Exit code 1 when a p95 is over its bound, a chart never painted or the page reported an
 * error; 2 for an unknown scenario or a renderer build missing or older than its sources.
 */
import { chromium, type Browser } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectPageErrors } from '../e2e/support/console-errors.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../e2e/support/demo-pair.ts';
import type { LatencyKind } from '../e2e/support/latency.ts';
import { analyzeAndTune, measureSliders, type TuneOptions } from '../e2e/support/slider-session.ts';
import { systemChromium } from '../e2e/support/system-chromium.ts';
import { parseCli } from './cli-args.ts';
import { ROOT } from './setup/build-electron.ts';
import { startServeProcess } from './setup/serve-process.ts';
import { rendererIsStale } from './setup/start-plan.ts';

interface Bound {
  readonly slider: 'alpha' | 'tau';
  readonly kind: LatencyKind;
  readonly ms: number;
}

interface Scenario {
  readonly title: string;
  /** Appended to the server's tokened URL. */
  readonly query: string;
  readonly tune: TuneOptions;
  readonly bounds: readonly Bound[];
  /** Why the scenario cannot run here, if it cannot. */
  readonly unavailable?: string;
}

interface Row {
  readonly scenario: string;
  readonly bound: Bound;
  readonly samples: number;
  readonly p95: number | null;
}

const demo = demoPair(ROOT);
// 100 ms is the aim at 48 layers. On the demo pair α's charts aim at 50 ms: the heatmap's α·S is
// computed in the page and the preview's α marker moves along the current curve (ΔL is linear in
// α), neither waiting for the engine. τ redraws only the mask curve and the τ line, but its input
// also re-renders the panels that read τ: 80 ms. (The preview while τ moves waits for the engine's
// round trip and is not held to a bound.)
const SCENARIOS: Record<string, Scenario> = {
  synthetic: {
    title: 'synthetic 48 layers × 128 experts, per projection',
    query: '&engine=synthetic&layers=48&experts=128',
    tune: { projectFolder: '/projects/synthetic', grouping: 'Per projection' },
    bounds: [{ slider: 'alpha', kind: 'heatmap', ms: 100 }, { slider: 'alpha', kind: 'preview', ms: 100 }, { slider: 'tau', kind: 'spectrum', ms: 100 }],
  },
  demo: {
    title: `demo pair (${demo?.layers ?? '?'} layers), real engine`,
    query: '',
    tune: {},
    bounds: [{ slider: 'alpha', kind: 'heatmap', ms: 50 }, { slider: 'alpha', kind: 'preview', ms: 50 }, { slider: 'tau', kind: 'spectrum', ms: 80 }],
    ...(demo === undefined ? { unavailable: NO_DEMO_MESSAGE } : {}),
  },
};

async function runScenario(browser: Browser, url: string, name: string, scenario: Scenario): Promise<Row[]> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = collectPageErrors(page);
  try {
    await page.goto(`${url}${scenario.query}`);
    await analyzeAndTune(page, scenario.tune);
    const latency = await measureSliders(page);
    if (errors.length > 0) throw new Error(`${name}: the page reported errors:\n  ${errors.join('\n  ')}`);
    return scenario.bounds.map((bound) => {
      const report = latency[bound.slider][bound.kind];
      return { scenario: name, bound, samples: report?.n ?? 0, p95: report?.p95 ?? null };
    });
  } catch (error) {
    const shot = join(ROOT, 'test-results', `bench-ui-${name}-failed.png`);
    await page.screenshot({ path: shot, fullPage: true });
    throw new Error(`${name}: the session stopped (page as it was: ${shot})`, { cause: error });
  } finally {
    await page.close();
  }
}

const verdict = ({ samples, p95, bound }: Row) => (samples === 0 || p95 === null ? 'NO PAINT' : p95 < bound.ms ? 'under' : 'OVER');

const HEADER = ['scenario', 'slider', 'chart', 'samples', 'p95 ms', 'bound ms', ''];

function printTable(rows: readonly Row[]): void {
  const cells = rows.map((row) => [row.scenario, row.bound.slider === 'alpha' ? 'α' : 'τ', row.bound.kind, String(row.samples), row.p95?.toFixed(1) ?? '-', String(row.bound.ms), verdict(row)]);
  const table = [HEADER, ...cells];
  const widths = HEADER.map((_, i) => Math.max(...table.map((line) => line[i]?.length ?? 0)));
  for (const line of table) console.log(line.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd());
}

async function main(): Promise<number> {
  const { values } = parseCli({
    usage: ['npm run build:renderer && npm run bench:ui [-- --scenario synthetic|demo]'],
    options: { scenario: { type: 'string', value: 'NAME', help: `run one scenario, ${Object.keys(SCENARIOS).join(' or ')} (default: all)` } },
  });
  const selected = Object.entries(SCENARIOS).filter(([name]) => values.scenario === undefined || name === values.scenario);
  if (selected.length === 0) {
    console.error(`bench:ui: unknown --scenario ${values.scenario} (known: ${Object.keys(SCENARIOS).join(', ')})`);
    return 2;
  }
  if (rendererIsStale(ROOT)) {
    console.error('bench:ui: dist/renderer is missing or older than its sources; run `npm run build:renderer` first.');
    return 2;
  }
  const chromiumPath = systemChromium();
  const dataDir = mkdtempSync(join(tmpdir(), 'crane-bench-ui-'));
  process.env['CRANE_DATA_DIR'] = dataDir;
  const server = await startServeProcess({ root: ROOT, uiDir: join(ROOT, 'dist', 'renderer') });
  const browser = await chromium.launch(chromiumPath === undefined ? {} : { executablePath: chromiumPath });
  const rows: Row[] = [];
  try {
    console.log(`Chromium ${browser.version()}, ${availableParallelism()} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const [name, scenario] of selected) {
      if (scenario.unavailable !== undefined) console.log(`${name} (${scenario.title}): SKIPPED, ${scenario.unavailable}`);
      else {
        console.log(`${name}: ${scenario.title}`);
        rows.push(...(await runScenario(browser, server.url, name, scenario)));
      }
    }
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  printTable(rows);
  return rows.every((row) => verdict(row) === 'under') ? 0 : 1;
}

process.exitCode = await main();
