/** `?engine=synthetic`: the whole UI against made-up data, no server needed (demos, latency checks). */
import type { EngineConnector } from '../engine-api.ts';
import { SyntheticEngine } from './synthetic-engine.ts';
import type { SyntheticShape } from './synthetic-model.ts';

export function syntheticConnector(shape: SyntheticShape): EngineConnector {
  return {
    kind: 'synthetic',
    label: `synthetic engine · ${shape.layers} layers${shape.experts > 0 ? ` × ${shape.experts} experts` : ''}`,
    connect: async () => new SyntheticEngine(shape),
  };
}
