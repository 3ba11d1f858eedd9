/**
 * What `demo:train --pair moe` changes from the dense demo pair: where it is written
 * (assets/demo-moe), the model (engine/demo/moe-layout.ts), the phase lengths
 * (sized for a 2-core machine shared with other work: an MoE step costs about twice a dense one
 * on wasm, per-expert gathers and small matmuls), and the objective, which adds a router
 * load-balancing term (engine/model/training/moe-objective.ts) and reports expert usage.
 */
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { DEMO_MOE_ROOT, demoMoeModelConfig } from '../../engine/demo/moe-layout.ts';
import { MoeObjective } from '../../engine/model/training/moe-objective.ts';
import type { TrainableModel } from '../../engine/model/training/trainable-model.ts';

/**
 * Weight of the load-balancing term (transformers' router_aux_loss_coef; Switch used 0.01). Needed:
 * 60 steps on the base data at the base's learning rate left some experts of layers 2-3 under
 * 1.2% of the routed tokens and one at 44% without it; with it every expert kept 3.6% or more.
 */
const MOE_BALANCE_COEFFICIENT = 0.01;

export const moeDemoTraining = {
  paths: (out?: string) => demoPaths(out ?? DEMO_MOE_ROOT),
  modelConfig: (vocabSize: number, endOfTurnId: number) => ({ ...demoMoeModelConfig(vocabSize, endOfTurnId), router_aux_loss_coef: MOE_BALANCE_COEFFICIENT }),
  phases: {
    base: { chats: 4200, steps: 240, peakLearningRate: 4e-3, warmupSteps: 30 },
    instruct: { chats: 1200, steps: 80, peakLearningRate: 2e-3, warmupSteps: 10 },
    thinking: { chats: 1200, steps: 80, peakLearningRate: 2e-3, warmupSteps: 10 },
  },
  objective: (model: TrainableModel) => new MoeObjective(model, MOE_BALANCE_COEFFICIENT),
};

/** "L0 12.5…13.1%" per layer: the least and most used expert's share of routed tokens. */
export function describeUsage(shares: readonly (readonly number[])[]): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return shares.map((layer, l) => `L${l} ${pct(Math.min(...layer))}…${pct(Math.max(...layer))}`).join(' ');
}
