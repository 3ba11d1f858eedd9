/** The selected block and the GSP spectrum of its layer. */
import type { ActivationKey, Block, Spectrum } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

export interface SelectionSlice {
  selection: { block: Block | null; activationKey: ActivationKey };
  spectrum: Loadable<Spectrum>;
  select(block: Block | null): void;
  setActivationKey(key: ActivationKey): void;
  setSpectrum(spectrum: Loadable<Spectrum>): void;
}

/** attention blocks read attn_input; everything fed by post_attention_layernorm reads ffn_input. */
export function activationKeyFor(group: string): ActivationKey {
  return /^(attention|q|k|v|o)(\.|$)/.test(group) ? 'attn_input' : 'ffn_input';
}

export const createSelectionSlice: SliceCreator<SelectionSlice> = (set) => ({
  selection: { block: null, activationKey: 'ffn_input' },
  spectrum: idle(),
  select: (block) =>
    set((s) => ({ selection: { block, activationKey: block === null ? s.selection.activationKey : activationKeyFor(block.group) } })),
  setActivationKey: (activationKey) => set((s) => ({ selection: { ...s.selection, activationKey } })),
  setSpectrum: (spectrum) => set({ spectrum }),
});
