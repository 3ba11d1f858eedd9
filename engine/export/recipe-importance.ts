/**
 * The importance files an AIM or LEWIS merge reads, hashed for the recipe and copied into the
 * export folder, so a recipe reproduces its export from that folder alone — recipe-analysis.ts's
 * rule for the gate table and projectors, applied to the baselines' measured inputs.
 *
 *   importanceRolesOf(method)                 aim, aim_ties → [aim]; lewis → [lewisBase, lewisTuned]; others []
 *   IMPORTANCE_COPIES                         role → the names its copy may have in an export folder
 *   loadEditImportance(method, source, expected?) → EditImportance | null
 *   withImportance(method, values)            the baseline's settings with what baselineEdit reads attached
 *   writeEmbeddedImportance(work, importance)
 *
 * Roles: `aim` is Instruct's mean |x| per Linear input (crane/aim-importance-file.ts); `lewisBase`
 * and `lewisTuned` are the per-Linear LEWIS importances of Instruct and of Thinking
 * (crane/lewis-importance-file.ts, `.pt` as lewis_importance.py writes it, or `.json`; the copy
 * keeps the extension, which decides how it is read). The bytes hashed are the bytes copied; the
 * values come from a second read of the same path, as recipe-analysis.ts does.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { aimImportanceOf } from '../crane/aim.ts';
import { readAimImportance } from '../crane/aim-importance-file.ts';
import type { BaselineSettings } from '../crane/baselines.ts';
import { readLewisImportance } from '../crane/lewis-importance-file.ts';
import { lewisEditSettings, type LewisImportances } from '../crane/lewis-schedule.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readRegularFile } from '../io/input-file.ts';
import type { RecipeMethod } from './recipe.ts';

export const IMPORTANCE_ROLES = ['aim', 'lewisBase', 'lewisTuned'] as const;
export type ImportanceRole = (typeof IMPORTANCE_ROLES)[number];

const ROLE_LABEL: Readonly<Record<ImportanceRole, string>> = {
  aim: 'AIM importance of Instruct',
  lewisBase: 'LEWIS importance of the base model (Instruct)',
  lewisTuned: 'LEWIS importance of the fine-tuned model (Thinking)',
};

/** Fixed names, so a recipe from a stranger cannot point a copy outside its folder. */
export const IMPORTANCE_COPIES = {
  aim: ['crane_aim_importance.safetensors'],
  lewisBase: ['crane_lewis_importance_base.json', 'crane_lewis_importance_base.pt'],
  lewisTuned: ['crane_lewis_importance_tuned.json', 'crane_lewis_importance_tuned.pt'],
} as const satisfies Readonly<Record<ImportanceRole, readonly [string, ...string[]]>>;

export function importanceRolesOf(method: { readonly method: string }): readonly ImportanceRole[] {
  if (method.method === 'aim' || method.method === 'aim_ties') return ['aim'];
  if (method.method === 'lewis') return ['lewisBase', 'lewisTuned'];
  return [];
}

/** The file of each role the edit reads. */
export type ImportancePaths = Partial<Readonly<Record<ImportanceRole, string>>>;

/** Where the files are, and for errors what that place is ("the export folder", "the analysis folder"). */
export interface ImportanceSource {
  readonly paths: ImportancePaths;
  readonly what: string;
}

/** The recipe's record of one file: its SHA-256 and its copy's name in the export folder. */
export interface ImportanceEntry {
  readonly sha256: string;
  readonly file: string;
}

export type ImportanceEntries = Partial<Readonly<Record<ImportanceRole, ImportanceEntry>>>;

/** What the edit reads: AIM's vectors or LEWIS's two importances. */
export interface ImportanceValues {
  readonly aim?: ReadonlyMap<string, Float32Array>;
  readonly lewis?: LewisImportances;
}

export interface EditImportance {
  readonly entries: ImportanceEntries;
  readonly values: ImportanceValues;
  /** The bytes hashed, by copy name. */
  readonly contents: ReadonlyMap<string, Buffer>;
}

/** The files an export folder holds for a recipe's entries. */
export function embeddedImportance(dir: string, entries: ImportanceEntries): ImportanceSource {
  const paths = Object.fromEntries(Object.entries(entries).map(([role, entry]) => [role, join(dir, entry.file)]));
  return { paths, what: 'the export folder' };
}

/**
 * Reads and hashes the method's importance files (null for a method that reads none); with
 * `expected` (the recipe's entries) refuses a file that hashes differently, naming it.
 */
export async function loadEditImportance(method: { readonly method: string }, source: ImportanceSource, expected?: ImportanceEntries): Promise<EditImportance | null> {
  const roles = importanceRolesOf(method);
  if (roles.length === 0) return null;
  const entries: Partial<Record<ImportanceRole, ImportanceEntry>> = {};
  const contents = new Map<string, Buffer>();
  const pathOf = {} as Record<ImportanceRole, string>;
  for (const role of roles) {
    const path = source.paths[role];
    if (path === undefined) throw new CheckpointError('not-found', source.what, `a ${method.method} merge reads the ${ROLE_LABEL[role]}, and none was given`);
    const bytes = await readRegularFile(path).catch((error: unknown) => {
      if (error instanceof CheckpointError && error.code === 'not-found') throw new CheckpointError('not-found', path, `${source.what} has no such file (the ${ROLE_LABEL[role]})`);
      throw error;
    });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const want = expected?.[role]?.sha256;
    if (expected !== undefined && want !== sha256) {
      throw new CheckpointError('metadata', path, want === undefined
        ? `is not among the recipe's importance files (${ROLE_LABEL[role]})`
        : `SHA-256 ${sha256} differs from the recipe's ${want} (${ROLE_LABEL[role]}): it is not the importance this export was made with`);
    }
    const file = expected?.[role]?.file ?? copyNameOf(role, path);
    entries[role] = { sha256, file };
    contents.set(file, bytes);
    pathOf[role] = path;
  }
  const values: ImportanceValues = roles.includes('aim')
    ? { aim: await readAimImportance(pathOf.aim) }
    : { lewis: { base: (await readLewisImportance(pathOf.lewisBase)).importance, tuned: (await readLewisImportance(pathOf.lewisTuned)).importance } };
  return { entries, values, contents };
}

/** The settings baselineEdit applies: AIM's and LEWIS's with their importance, the others as they are. */
export function withImportance(method: Exclude<RecipeMethod, { method: 'crane' }>, values: ImportanceValues | null): BaselineSettings {
  if (method.method === 'aim' || method.method === 'aim_ties') {
    if (values?.aim === undefined) throw new RangeError(`${method.method} needs the AIM importance of an analysis`);
    return { ...method, importance: aimImportanceOf(values.aim) };
  }
  if (method.method === 'lewis') {
    if (values?.lewis === undefined) throw new RangeError('lewis needs the LEWIS importance files of both models');
    return lewisEditSettings(method, values.lewis);
  }
  return method;
}

export async function writeEmbeddedImportance(work: string, importance: EditImportance): Promise<void> {
  for (const [file, bytes] of importance.contents) await writeFile(join(work, file), bytes);
}

/** AIM's one name; LEWIS's keeps the source's encoding (JSON, or a torch file as `.pt`). */
function copyNameOf(role: ImportanceRole, path: string): string {
  if (role === 'aim') return IMPORTANCE_COPIES.aim[0];
  const [json, torch] = IMPORTANCE_COPIES[role];
  return extname(path).toLowerCase() === '.json' ? json : torch;
}
