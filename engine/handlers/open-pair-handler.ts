/**
 * openPair: the compatibility report of two checkpoint folders (three with the optional Base:
 * its config and tensors are checked against the pair, errors naming them), and the pair becomes
 * the open project's — so "open a pair, then Analyze" works without a separate save. With no
 * project open, and a data folder given by the host, the pair gets its own project there
 * (DATA/projects/pair-<hash of the two paths>), reopened on the next visit with its cache.
 * Opening without a Base clears the project's. Changing the pair of a project leaves its cache on
 * disk; the stage states then say 'stale' (the Base is not an analysis input: nothing goes stale).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { comparePair } from '../io/pair-report.ts';
import type { Params, Result } from '../protocol/methods.ts';
import { checkpointSummary, pairReportView } from './checkpoint-views.ts';
import type { EngineSession } from './engine-session.ts';
import { withCheckpointDirs } from './checkpoint-dirs.ts';

export function openPairHandler(session: EngineSession, dataDir: string | null) {
  return ({ instruct, thinking, base }: Params<'openPair'>): Promise<Result<'openPair'>> =>
    withCheckpointDirs([instruct, thinking, ...(base === undefined ? [] : [base])], async ([a, b, c]) => {
      const summary = {
        instruct: checkpointSummary(a),
        thinking: checkpointSummary(b),
        ...(c === undefined ? {} : { base: checkpointSummary(c) }),
        report: pairReportView(await comparePair(a, b, c)),
      };
      const pair = { instruct: a.dir, thinking: b.dir, base: c?.dir ?? null };
      const open = session.project;
      if (open !== null) {
        const { project } = open;
        if (project.instruct !== pair.instruct || project.thinking !== pair.thinking || (project.base ?? null) !== pair.base) await session.update((p) => ({ ...p, ...pair }));
      } else if (dataDir !== null) {
        const id = createHash('sha256').update(`${pair.instruct}\0${pair.thinking}`).digest('hex').slice(0, 12);
        await session.save(join(dataDir, 'projects', `pair-${id}`), (stored) => ({ ...stored, ...pair }));
      }
      return summary;
    });
}
