/**
 * Handlers over a tiny random pair on disk (engine/pipeline/testing/tiny-project.ts), with a
 * context that records every event a handler emits and can be cancelled — what the host gives a
 * handler, without a transport.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventName, EventPayload } from '../../protocol/methods.ts';
import type { HandlerContext, Handlers } from '../../protocol/handlers.ts';
import { REQUESTS } from '../../protocol/methods.ts';
import { writeTinyProject, type TinyProject } from '../../pipeline/testing/tiny-project.ts';
import { createEngineHandlers } from '../engine-handlers.ts';
import { EngineSession } from '../engine-session.ts';

export interface RecordingContext extends HandlerContext {
  readonly events: { event: EventName; payload: unknown }[];
  readonly controller: AbortController;
  of<E extends EventName>(event: E): EventPayload<E>[];
}

let nextId = 1;

export function recordingContext(): RecordingContext {
  const controller = new AbortController();
  const events: { event: EventName; payload: unknown }[] = [];
  return {
    requestId: nextId++,
    signal: controller.signal,
    controller,
    events,
    emit: (event, payload) => void events.push({ event, payload }),
    of: <E extends EventName>(event: E) => events.filter((e) => e.event === event).map((e) => e.payload as EventPayload<E>),
  };
}

export interface Harness extends TinyProject {
  readonly root: string;
  readonly projectDir: string;
  readonly dataDir: string;
  readonly session: EngineSession;
  readonly handlers: Handlers;
}

export async function harness(root: string): Promise<Harness> {
  return harnessOn(root, await writeTinyProject(root));
}

/** The handlers over a project already written under `root` (a RAIN triple, say). */
export async function harnessOn<P extends TinyProject>(root: string, tiny: P): Promise<Harness & P> {
  const projectDir = join(root, 'project');
  const dataDir = join(root, 'user-data');
  await Promise.all([mkdir(projectDir), mkdir(dataDir)]);
  const session = new EngineSession();
  return { ...tiny, root, projectDir, dataDir, session, handlers: createEngineHandlers({ session, dataDir }) };
}

/** Calls a handler and checks its result against the protocol schema, as the host does. */
export async function call<K extends keyof Handlers>(h: Harness, method: K, params: Parameters<Handlers[K]>[0], ctx: HandlerContext = recordingContext()) {
  const handler = h.handlers[method] as (p: unknown, c: HandlerContext) => Promise<unknown>;
  const result = await handler(params, ctx);
  return REQUESTS[method].result.parse(result) as Awaited<ReturnType<Handlers[K]>>;
}
