/** How the UI names the merge methods: the methods table's labels (engine/protocol/method-parameters.ts). */
import { METHODS, METHOD_NAMES, type MergeMethodName } from '../protocol.ts';

export { METHOD_NAMES };

export const METHOD_LABELS = Object.fromEntries(METHOD_NAMES.map((name) => [name, METHODS[name].label])) as Record<MergeMethodName, string>;

/** Why a method cannot run on this project ('needs a Base checkpoint' for RAIN without one), or null. */
export function methodUnavailable(method: MergeMethodName, hasBase: boolean): string | null {
  return METHODS[method].needs === 'base' && !hasBase ? 'needs a Base checkpoint' : null;
}
