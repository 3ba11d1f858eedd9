/**
 * What the command line asks the app to open at launch (`npm start` passes the demo pair):
 *   --instruct DIR --thinking DIR   open a pair
 *   --project DIR                   open a project
 * Unknown arguments are ignored: Electron and Chromium add switches of their own.
 */
import { resolve } from 'node:path';
import type { OpenRequest } from '../../engine/protocol/desktop-bridge.ts';

export interface LaunchPlan {
  readonly requests: OpenRequest[];
  /** Why something asked for was not opened (printed by main). */
  readonly problems: string[];
}

export function launchRequests(argv: readonly string[], cwd: string): LaunchPlan {
  const value = (flag: string): string | undefined => {
    const index = argv.indexOf(flag);
    const next = index === -1 ? undefined : argv[index + 1];
    return next === undefined || next.startsWith('--') ? undefined : resolve(cwd, next);
  };
  const [instruct, thinking, projectDir] = [value('--instruct'), value('--thinking'), value('--project')];
  const plan: LaunchPlan = { requests: [], problems: [] };
  if (instruct !== undefined && thinking !== undefined) plan.requests.push({ kind: 'pair', instruct, thinking });
  else if (instruct !== undefined || thinking !== undefined) plan.problems.push('opening a pair needs both --instruct DIR and --thinking DIR');
  if (projectDir !== undefined) plan.requests.push({ kind: 'project', projectDir });
  return plan;
}
