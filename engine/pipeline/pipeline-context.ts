/** What every analysis stage reads: the open pair, the input hashes, settings, folder, callbacks. */
import type { Checkpoint } from '../io/checkpoint.ts';
import type { PipelineSettings } from './analysis-settings.ts';
import type { InputHashes, PipelinePaths } from './pipeline-folder.ts';
import type { PipelineCallbacks } from './progress.ts';

export interface PipelineContext {
  readonly instruct: Checkpoint;
  readonly thinking: Checkpoint;
  readonly inputs: InputHashes;
  readonly settings: PipelineSettings;
  readonly paths: PipelinePaths;
  readonly callbacks: PipelineCallbacks;
}
