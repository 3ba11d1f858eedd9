/**
 * The token rows an edit uses: a checkpoint without tokenizer.json edits without row rules (and
 * says so); a tokenizer that is there but broken is refused, never silently replaced by "no rows".
 */
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editTokenRows } from './checkpoint-tokenizer.ts';
import { writeTinyProject, type TinyProject } from './testing/tiny-project.ts';

let root: string;
let project: TinyProject;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-token-rows-'));
  project = await writeTinyProject(join(root, 'project'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function copyOfInstruct(name: string): Promise<string> {
  const dir = join(root, name);
  await cp(project.instruct, dir, { recursive: true });
  return dir;
}

describe('editTokenRows', () => {
  it('gives the think pair and protected rows of a usable tokenizer without a warning', async () => {
    const warnings: string[] = [];
    const rows = await editTokenRows(project.instruct, (m) => warnings.push(m));
    expect(rows.think).toHaveLength(2);
    expect(rows.special.length).toBeGreaterThan(0);
    expect(rows.special).not.toContain(rows.think[0]);
    expect(warnings).toEqual([]);
  });

  it('edits a weights-only folder without row rules and says so', async () => {
    const dir = await copyOfInstruct('weights-only');
    await unlink(join(dir, 'tokenizer.json'));
    const warnings: string[] = [];
    expect(await editTokenRows(dir, (m) => warnings.push(m))).toEqual({ think: [], special: [] });
    expect(warnings).toEqual([`${dir} has no tokenizer.json: embedding and lm_head rows get no think/protected rules`]);
  });

  it('refuses a tokenizer.json that is there but broken, naming it', async () => {
    const dir = await copyOfInstruct('broken');
    await writeFile(join(dir, 'tokenizer.json'), '{"model": ');
    const warnings: string[] = [];
    await expect(editTokenRows(dir, (m) => warnings.push(m))).rejects.toThrow(join(dir, 'tokenizer.json'));
    expect(warnings).toEqual([]);
  });

  it('refuses a tokenizer with an id past the embedding, naming the file and the token', async () => {
    const dir = await copyOfInstruct('past-the-embedding');
    const path = join(dir, 'tokenizer.json');
    const json = JSON.parse(await readFile(path, 'utf8')) as { added_tokens: { id: number; content: string }[] };
    json.added_tokens.push({ ...json.added_tokens[0], id: 1_000_000, content: '<far>' } as { id: number; content: string });
    await writeFile(path, JSON.stringify(json));
    await expect(editTokenRows(dir, () => undefined)).rejects.toThrow(`${path}: token "<far>" has id 1000000, outside the embedding`);
  });
});
