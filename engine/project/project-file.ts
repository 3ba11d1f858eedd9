/**
 * The project file: `DIR/project.json`, versioned, written atomically.
 *
 *   readProjectFile(dir) → ProjectFile | null      null when the folder holds no project yet
 *   writeProjectFile(dir, file)                     temp file + rename: a reader sees old or new
 *   newProject(pair?) → ProjectFile                 empty project with the spec's default edit
 *
 * On disk it is the protocol's project shape (pair, analysis settings with the calibration
 * paths, edit settings with per-block overrides and locks, verified points) plus what only the
 * engine keeps: a format tag and version, and the export history. The protocol schema is reused
 * so a file the engine accepts is always one it can hand to the UI unchanged. Older versions are
 * read through project-migration.ts.
 */
import { z } from 'zod';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { checkJson, readJsonFile } from '../io/json-file.ts';
import { isJsonObject } from '../io/json-object.ts';

import { projectFileSchema } from '../protocol/project-schemas.ts';
import { DEFAULT_CRANE_SETTINGS } from '../protocol/settings-defaults.ts';
import { mergeMethodSchema } from '../protocol/settings-schemas.ts';
import { projectPaths } from './project-layout.ts';
import { migrateProject } from './project-migration.ts';
import { writeFileAtomic } from '../io/atomic-file.ts';

export const PROJECT_FORMAT = 'crane-project';
/** 2: one settings vocabulary; 3: analysis.evaluation and measuredOn; 4: the optional Base checkpoint (see project-migration.ts). */
export const PROJECT_FORMAT_VERSION = 4;

const exportRecordSchema = z.strictObject({
  outDir: z.string(),
  method: mergeMethodSchema.or(z.json()),
  dtype: z.string(),
  totalBytes: z.number().nonnegative(),
  files: z.array(z.string()),
  finishedAt: z.string(),
});

export type ExportRecord = z.infer<typeof exportRecordSchema>;

const storedProjectSchema = projectFileSchema.extend({
  format: z.literal(PROJECT_FORMAT),
  formatVersion: z.literal(PROJECT_FORMAT_VERSION),
  exports: z.array(exportRecordSchema),
});

export type ProjectFile = z.infer<typeof projectFileSchema>;
export type StoredProject = z.infer<typeof storedProjectSchema>;

export function newProject(pair: { instruct: string; thinking: string } | null = null): StoredProject {
  return {
    format: PROJECT_FORMAT,
    formatVersion: PROJECT_FORMAT_VERSION,
    instruct: pair?.instruct ?? null,
    thinking: pair?.thinking ?? null,
    base: null,
    analysis: null,
    settings: structuredClone(DEFAULT_CRANE_SETTINGS),
    verified: [],
    exports: [],
  };
}

export async function readProjectFile(dir: string): Promise<StoredProject | null> {
  const path = projectPaths(dir).file;
  const json = await readJsonFile(path, z.unknown(), 'a CRANE project file');
  if (json === undefined) return null;
  const version = isJsonObject(json) ? json['formatVersion'] : undefined;
  if (typeof version === 'number' && version > PROJECT_FORMAT_VERSION) {
    throw new CheckpointError('metadata', path, `is project format ${version}; this engine reads up to ${PROJECT_FORMAT_VERSION}`);
  }
  return checkJson(path, migrateProject(json), storedProjectSchema, 'a CRANE project file');
}

export async function writeProjectFile(dir: string, project: StoredProject): Promise<void> {
  const checked = storedProjectSchema.parse(project);
  await writeFileAtomic(projectPaths(dir).file, `${JSON.stringify(checked, null, 2)}\n`);
}

/** The protocol's view: the stored file without the engine-only fields. */
export function protocolProject(stored: StoredProject): ProjectFile {
  const { instruct, thinking, base, analysis, settings, verified } = stored;
  return { instruct, thinking, ...(base === undefined ? {} : { base }), analysis, settings, verified };
}
