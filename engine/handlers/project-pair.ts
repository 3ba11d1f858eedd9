/** The open project's two checkpoints, opened for one request and always closed. */
import { Checkpoint } from '../io/checkpoint.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { StoredProject } from '../project/project-file.ts';

export function requirePair(project: StoredProject): { instruct: string; thinking: string } {
  if (project.instruct === null || project.thinking === null) throw new ProtocolError('not-found', 'the project has no pair: open one first');
  return { instruct: project.instruct, thinking: project.thinking };
}

export async function withProjectPair<T>(project: StoredProject, body: (pair: { instruct: Checkpoint; thinking: Checkpoint }) => Promise<T>): Promise<T> {
  const paths = requirePair(project);
  const instruct = await Checkpoint.open(paths.instruct);
  try {
    const thinking = await Checkpoint.open(paths.thinking);
    try {
      return await body({ instruct, thinking });
    } finally {
      await thinking.close();
    }
  } finally {
    await instruct.close();
  }
}
