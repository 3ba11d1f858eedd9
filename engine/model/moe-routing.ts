/**
 * Token → expert routing of one sparse MoE layer, decided in JS from the router softmax: each
 * token goes to the k experts of highest probability (ties: lower expert index first). The
 * choice is a constant of the forward pass, as in Qwen3MoeSparseMoeBlock: gradients flow through
 * the chosen probabilities, never through which experts were chosen.
 */
import type { MoeSpec } from './moe-config.ts';

export interface MoeRouting {
  readonly tokens: number;
  readonly numExperts: number;
  readonly expertsPerToken: number;
  /** Router softmax over all experts, [tokens · numExperts] row-major. */
  readonly probs: Float32Array;
  /** The chosen experts of each token, [tokens · k], by descending probability. */
  readonly experts: Int32Array;
}

export function routeTokens(probs: Float32Array, tokens: number, moe: MoeSpec): MoeRouting {
  const { numExperts: e, expertsPerToken: k } = moe;
  if (probs.length !== tokens * e) throw new Error(`internal: router probabilities have ${probs.length} values, expected ${tokens}×${e}`);
  const experts = new Int32Array(tokens * k);
  const order = Array.from({ length: e }, (_, i) => i);
  for (let t = 0; t < tokens; t++) {
    const row = probs.subarray(t * e, (t + 1) * e);
    order.sort((a, b) => (row[b] as number) - (row[a] as number) || a - b);
    for (let j = 0; j < k; j++) experts[t * k + j] = order[j] as number;
  }
  return { tokens, numExperts: e, expertsPerToken: k, probs, experts };
}

/** [tokens · numExperts] with 1 where the token was routed to the expert. */
export function selectionMask(routing: MoeRouting): Float32Array {
  const mask = new Float32Array(routing.tokens * routing.numExperts);
  routing.experts.forEach((expert, i) => (mask[Math.floor(i / routing.expertsPerToken) * routing.numExperts + expert] = 1));
  return mask;
}

/**
 * Where each (token, slot) lands when every expert's routed rows are stacked expert after
 * expert: `tokensOf[e]` are the tokens routed to expert e (ascending) and `rowOf[t·k + j]` is
 * the stacked row of token t's j-th chosen expert. Summing the stacked rows gathered by rowOf
 * over the k slots scatters the experts' outputs back to their tokens.
 */
export interface ExpertRows {
  readonly tokensOf: readonly Int32Array[];
  readonly rowOf: Int32Array;
}

export function expertRows(routing: MoeRouting): ExpertRows {
  const { tokens, numExperts, expertsPerToken: k, experts } = routing;
  const counts = new Int32Array(numExperts);
  for (const expert of experts) counts[expert] = (counts[expert] as number) + 1;
  const start = new Int32Array(numExperts);
  for (let e = 1; e < numExperts; e++) start[e] = (start[e - 1] as number) + (counts[e - 1] as number);
  const tokensOf = Array.from(counts, (n) => new Int32Array(n));
  const filled = new Int32Array(numExperts);
  const rowOf = new Int32Array(tokens * k);
  for (let t = 0; t < tokens; t++) {
    for (let j = 0; j < k; j++) {
      const expert = experts[t * k + j] as number;
      const n = filled[expert] as number;
      (tokensOf[expert] as Int32Array)[n] = t;
      rowOf[t * k + j] = (start[expert] as number) + n;
      filled[expert] = n + 1;
    }
  }
  return { tokensOf, rowOf };
}
