/**
 * THE protocol map: every request with its params and result schema, every push event with its
 * payload schema. Hosts, clients and handlers derive their types from here, so a method added
 * here is type-checked end to end. Long requests (analyze, verify, export) answer when they end;
 * meanwhile they push progress/stageDone/log events carrying their request id.
 */
import { z } from 'zod';
import { errorInfoSchema } from './errors.ts';
import {
  analysisSummarySchema,
  gateMetricsSchema,
  activationKeySchema,
  layerViewSchema,
  previewSchema,
  referenceRunSummarySchema,
  spectrumSchema,
  verifyResultSchema,
} from './analysis-schemas.ts';
import { checkpointDetailSchema, pairSummarySchema } from './checkpoint-schemas.ts';
import { directoryListingSchema } from './directory-schemas.ts';
import { blockSchema, exportDtypeSchema, logLevelSchema, pathSchema, requestIdSchema, stageSchema } from './common-schemas.ts';
import { expertMetricsSchema } from './expert-schemas.ts';
import { blockPassesSchema, passMetricsSchema } from './pass-schemas.ts';
import { builtinProjectSchema, exportSummarySchema, projectFileSchema, projectStateSchema } from './project-schemas.ts';
import { analysisSettingsSchema, craneSettingsSchema, granularitySchema, mergeMethodSchema, strengthSchema } from './settings-schemas.ts';

/** Bumped on any incompatible change to this map; ping reports it. */
export const PROTOCOL_VERSION = 1;

const request = <P extends z.ZodType, R extends z.ZodType>(params: P, result: R) => ({ params, result });
const none = z.strictObject({});

export const REQUESTS = {
  ping: request(none, z.strictObject({ protocolVersion: z.literal(PROTOCOL_VERSION), now: z.number() })),
  /** Aborts the signal of a request in flight on this connection; false if it already ended. */
  cancel: request(z.strictObject({ requestId: requestIdSchema }), z.strictObject({ cancelled: z.boolean() })),
  inspectCheckpoint: request(z.strictObject({ dir: pathSchema }), checkpointDetailSchema),
  /** The folders inside `dir`, for completing a typed path; only inside the data folder and the open project's folders. */
  listDirectories: request(z.strictObject({ dir: pathSchema }), directoryListingSchema),
  /** `base`: the project's optional Base checkpoint (checked against the pair); absent clears it. */
  openPair: request(z.strictObject({ instruct: pathSchema, thinking: pathSchema, base: pathSchema.optional() }), pairSummarySchema),
  openProject: request(z.strictObject({ projectDir: pathSchema }), projectStateSchema),
  /** The project open in the engine, or null before one is opened. */
  getProjectState: request(none, projectStateSchema.nullable()),
  saveProject: request(z.strictObject({ projectDir: pathSchema, project: projectFileSchema }), projectStateSchema),
  /** The built-in pairs that are built, each prepared as a project in the host's data folder (none without one). */
  listBuiltinPairs: request(none, z.array(builtinProjectSchema)),
  /** Runs the missing or stale stages (cached ones are reused); resumable after a cancel. */
  analyze: request(z.strictObject({ projectDir: pathSchema, settings: analysisSettingsSchema }), analysisSummarySchema),
  /**
   * Imports a run of the CRANE reference pipeline as the project's analysis: `source` is the
   * run's folder (phase2_stats.json, format_projectors.pt, optional linattn file) with
   * `projectors` null, or its stats file with `projectors` (and `projectorsLinattn`) named.
   */
  openReferenceRun: request(
    z.strictObject({ projectDir: pathSchema, source: pathSchema, projectors: pathSchema.nullable(), projectorsLinattn: pathSchema.nullable() }),
    referenceRunSummarySchema,
  ),
  getGateMetrics: request(z.strictObject({ granularity: granularitySchema }), gateMetricsSchema),
  /** The layer × expert views of an MoE analysis (expert-schemas.ts); null for a model without routed experts. */
  getExpertMetrics: request(none, expertMetricsSchema.nullable()),
  /** A looped model's per-pass sums and spectra (pass-schemas.ts); null for a model without a loop. */
  getPassMetrics: request(none, passMetricsSchema.nullable()),
  /** A looped model's block under one method: each tensor's first-order ΔL per pass (pass-schemas.ts); null for a model without a loop. */
  getBlockPasses: request(z.strictObject({ block: blockSchema, method: mergeMethodSchema }), blockPassesSchema.nullable()),
  /** Instant: first-order ΔL at these settings and along `alphas`. */
  preview: request(z.strictObject({ settings: craneSettingsSchema, alphas: z.array(strengthSchema).max(1024) }), previewSchema),
  spectrum: request(
    z.strictObject({ layer: z.int().nonnegative(), key: activationKeySchema, tau: craneSettingsSchema.shape.tau, steepness: craneSettingsSchema.shape.steepness }),
    spectrumSchema,
  ),
  inspectLayer: request(
    z.strictObject({ block: blockSchema, method: mergeMethodSchema, bins: z.int().min(2).max(1024), mapSize: z.int().min(2).max(1024) }),
    layerViewSchema,
  ),
  verify: request(z.strictObject({ method: mergeMethodSchema }), verifyResultSchema),
  export: request(
    z.strictObject({
      outDir: pathSchema,
      dtype: exportDtypeSchema,
      shardBytes: z.int().min(1 << 20),
      method: mergeMethodSchema,
      overwrite: z.boolean(),
    }),
    exportSummarySchema,
  ),
} as const;

export const EVENTS = {
  progress: z.strictObject({
    requestId: requestIdSchema,
    stage: stageSchema,
    fraction: z.number().min(0).max(1),
    etaSeconds: z.number().nonnegative().nullable(),
  }),
  stageDone: z.strictObject({ requestId: requestIdSchema, stage: stageSchema, cached: z.boolean(), seconds: z.number().nonnegative() }),
  log: z.strictObject({ level: logLevelSchema, message: z.string(), requestId: requestIdSchema.nullable() }),
  /** A failure that answers no request: an undecodable message, or an engine fault between requests. */
  error: errorInfoSchema,
} as const;

export type RequestName = keyof typeof REQUESTS;
export type Params<K extends RequestName> = z.infer<(typeof REQUESTS)[K]['params']>;
export type Result<K extends RequestName> = z.infer<(typeof REQUESTS)[K]['result']>;
export type EventName = keyof typeof EVENTS;
export type EventPayload<E extends EventName> = z.infer<(typeof EVENTS)[E]>;

/** Own keys only: "toString" or "__proto__" must not resolve to a method. */
export function isRequestName(name: string): name is RequestName {
  return Object.hasOwn(REQUESTS, name);
}

export function isEventName(name: string): name is EventName {
  return Object.hasOwn(EVENTS, name);
}
