import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256File } from '../analysis/provenance.ts';
import { buildDirectoryAtomically } from '../io/atomic-directory.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { ProtocolError } from '../protocol/errors.ts';
import { asProtocolError } from './handler-errors.ts';

/** The protocol error a failure reaches the UI as. */
async function reported(work: () => Promise<unknown>): Promise<ProtocolError> {
  const error = asProtocolError(await work().then(() => new Error('did not fail'), (e: unknown) => e));
  if (!(error instanceof ProtocolError)) throw new Error(`not a protocol error: ${String(error)}`);
  return error;
}

describe('engine failures as protocol errors', () => {
  it('a missing calibration file is not-found naming the file, not a raw ENOENT', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'reasoning.jsonl');
      const error = await reported(() => sha256File(path));
      expect(error.code).toBe('not-found');
      expect(error.message).toBe(`${path}: file not found`);
    });
  });

  it('an output folder that exists is already-exists, in plain words', async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, 'export');
      await mkdir(out);
      const error = await reported(() => buildDirectoryAtomically(out, async () => undefined));
      expect(error.code).toBe('already-exists');
      expect(error.message).toBe(`${out}: output folder already exists (choose another or allow overwrite)`);
    });
  });
});
