import * as tf from '@tensorflow/tfjs-core';
import { expect } from 'vitest';

/**
 * Checks one parameter's autodiff gradient against a central difference of the loss at the
 * coordinate with the largest gradient, where the difference quotient stands far above float32
 * noise. The variable is restored afterwards.
 */
export function expectLargestGradientMatches(name: string, variable: tf.Variable, gradient: ArrayLike<number>, lossAt: () => number, eps = 2e-3): void {
  let at = 0;
  for (let i = 1; i < gradient.length; i++) if (Math.abs(gradient[i] as number) > Math.abs(gradient[at] as number)) at = i;
  const original = variable.dataSync().slice();
  const shifted = (delta: number) => {
    const values = original.slice();
    values[at] = (values[at] as number) + delta;
    variable.assign(tf.tensor(values, variable.shape));
    return lossAt();
  };
  const numeric = (shifted(eps) - shifted(-eps)) / (2 * eps);
  variable.assign(tf.tensor(original, variable.shape));
  const analytic = gradient[at] as number;
  expect(Math.abs(analytic), name).toBeGreaterThan(1e-2);
  expect(Math.abs(numeric - analytic), `${name}[${at}]: autodiff ${analytic} vs finite difference ${numeric}`).toBeLessThan(0.03 * Math.abs(analytic) + 2e-4);
}
