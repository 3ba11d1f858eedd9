/** How the UI names and summarises the merge methods (their settings and defaults are the protocol's). */
import type { MergeMethod, MergeMethodName } from '../protocol.ts';

export const METHOD_LABELS: Record<MergeMethodName, string> = {
  crane: 'CRANE',
  task_arithmetic: 'Task Arithmetic',
  ties: 'TIES',
  slerp: 'SLERP',
  dare: 'DARE',
  aim: 'AIM',
  lewis: 'LEWIS',
};

export const METHOD_NAMES = Object.keys(METHOD_LABELS) as MergeMethodName[];

export function describeMethod(method: MergeMethod): string {
  switch (method.method) {
    case 'crane':
      return `α ${method.settings.alpha}, q ${method.settings.keepQuantile}, τ ${method.settings.tau}`;
    case 'task_arithmetic':
      return `λ ${method.lambda}`;
    case 'ties':
      return `λ ${method.lambda}, density ${method.density}`;
    case 'slerp':
      return `t ${method.t}`;
    case 'dare':
      return `λ ${method.lambda}, drop ${method.dropProbability}, seed ${method.seed}`;
    case 'aim':
      return `λ ${method.lambda}, ω ${method.omega}`;
    case 'lewis':
      return `λ ${method.lambda}, density ${method.gamma}–${method.epsilon} (else ${method.defaultDensity})`;
  }
}
