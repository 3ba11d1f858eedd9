/**
 * The hidden siblings an atomic directory build makes next to its target, and reclaiming the ones
 * a killed process left behind.
 *
 *   siblingPath(target, 'tmp' | 'old') → `.NAME.crane-tmp-HOST-PID-RANDOM` (or crane-old)
 *   reclaimStaleSiblings(target) → names removed or restored
 *
 * The owner (host tag and pid) is part of the name, so the next build of the same target can tell
 * a folder whose process is gone from one a concurrent build is still filling: only siblings made
 * on this host by a pid that no longer runs are touched. A stale `crane-old` folder is the
 * previous, complete output, moved aside an instant before the new one was renamed in: when the
 * target is missing (the kill fell between the two renames) it is renamed back, otherwise
 * removed. Siblings of other hosts (a shared network folder) and of the older name format, which
 * carry no owner, are left alone.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

type SiblingKind = 'tmp' | 'old';

const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

export function siblingPath(target: string, kind: SiblingKind): string {
  return join(dirname(target), `.${basename(target)}.crane-${kind}-${HOST_TAG}-${process.pid}-${randomBytes(4).toString('hex')}`);
}

export async function reclaimStaleSiblings(target: string): Promise<string[]> {
  const prefix = `.${basename(target)}.crane-`;
  const names = (await readdir(dirname(target)).catch(() => [])).filter((name) => name.startsWith(prefix));
  const stale = names
    .map((name) => ({ name, owner: parseOwner(name.slice(prefix.length)) }))
    .filter((s): s is { name: string; owner: { kind: SiblingKind; host: string; pid: number } } => s.owner !== undefined)
    .filter((s) => s.owner.host === HOST_TAG && !isRunning(s.owner.pid));
  const reclaimed: string[] = [];
  for (const { name, owner } of stale) {
    const path = join(dirname(target), name);
    if (owner.kind === 'old' && !(await exists(target))) await rename(path, target);
    else await rm(path, { recursive: true, force: true });
    reclaimed.push(name);
  }
  return reclaimed;
}

function parseOwner(rest: string): { kind: SiblingKind; host: string; pid: number } | undefined {
  const match = /^(tmp|old)-([0-9a-f]{8})-(\d+)-[0-9a-f]+$/.exec(rest);
  if (match === null) return undefined;
  return { kind: match[1] as SiblingKind, host: match[2] as string, pid: Number(match[3]) };
}

/** Signal 0 checks existence only; EPERM means it runs under another user, so it is alive. */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}
