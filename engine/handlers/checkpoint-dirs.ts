/** Opens validated checkpoint folders for one request and always closes them; errors become protocol errors. */
import { Checkpoint } from '../io/checkpoint.ts';
import { toProtocolError } from './checkpoint-views.ts';
import { validatePath } from './path-validator.ts';

/** The first two folders are always there; a third (openPair's optional Base) when given. */
export async function withCheckpointDirs<T>(dirs: readonly string[], body: (checkpoints: [Checkpoint, Checkpoint, Checkpoint?]) => Promise<T>): Promise<T> {
  const checkpoints: Checkpoint[] = [];
  try {
    for (const dir of dirs) checkpoints.push(await Checkpoint.open(await validatePath(dir, 'directory')));
    return await body(checkpoints as [Checkpoint, Checkpoint, Checkpoint?]);
  } catch (error) {
    throw toProtocolError(error);
  } finally {
    await Promise.all(checkpoints.map((c) => c.close()));
  }
}
