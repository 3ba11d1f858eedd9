/** The built-in demo pair, when `npm run demo:train` has built it. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DemoPair {
  readonly instruct: string;
  readonly thinking: string;
  readonly layers: number;
}

export function demoPair(root: string): DemoPair | undefined {
  const instruct = join(root, 'assets', 'demo', 'instruct');
  const thinking = join(root, 'assets', 'demo', 'thinking');
  if (![instruct, thinking].every((d) => existsSync(join(d, 'config.json')))) return undefined;
  const config = JSON.parse(readFileSync(join(instruct, 'config.json'), 'utf8')) as { num_hidden_layers: number };
  return { instruct, thinking, layers: config.num_hidden_layers };
}

export const NO_DEMO_MESSAGE = 'DEMO JOURNEY SKIPPED: the demo pair is not built (assets/demo/{instruct,thinking}); run `npm run demo:train` first.';
