/**
 * The README.md written beside an exported checkpoint: what was made, from what, and how to make
 * it again. Built only from the recipe and the export's notes (no dates, no paths), so two exports
 * of one recipe have identical cards.
 */
import { RECIPE_FILE, type Recipe } from './recipe.ts';

const CRANE_SUMMARY = [
  'CRANE (Constrained Reasoning Injection for Code Agents via Nullspace Editing) moves an Instruct',
  'model towards its Thinking sibling per tensor as θ_M = θ_I + Π_GSP(α · S_CTG · T(δ)), δ = θ_T − θ_I:',
  'T keeps the larger half of |δ| (rescaled), the Conservative Taylor Gate S_CTG scales each',
  '(component, layer) block by the first-order gain that helps both reasoning and agent losses, and',
  'the Graduated Sigmoidal Projection removes the input-side directions that carry the tool-call',
  'format. Embeddings, lm_head and MoE routers follow their own rules.',
].join('\n');

export function modelCard(recipe: Recipe, notes: readonly string[]): string {
  const { method } = recipe;
  const title = method.method === 'crane' ? 'CRANE edit' : `${method.method} merge`;
  const inputs = (['instruct', 'thinking'] as const).flatMap((side) => [
    `### ${side === 'instruct' ? 'Instruct (θ_I, the base)' : 'Thinking (θ_T)'}`,
    '',
    ...Object.entries(recipe.inputs[side].files).map(([file, hash]) => `- \`${file}\` sha256 \`${hash}\``),
    '',
  ]);
  const analysis = recipe.analysis === null ? [] : [
    '### Analysis artifacts',
    '',
    ...Object.entries(recipe.analysis.files).map(([file, hash]) => `- \`${file}\` sha256 \`${hash}\`${copyNote(recipe, file)}`),
    '',
  ];
  const importance = recipe.importance === null ? [] : [
    '### Importance files',
    '',
    ...Object.entries(recipe.importance).map(([role, entry]) => `- ${role}: sha256 \`${entry.sha256}\`, kept here as \`${entry.file}\``),
    '',
  ];
  // Run from this folder, the recipe finds the analysis copies beside it; an older recipe needs the folder.
  const analysisFlag = recipe.analysis === null || recipe.analysis.embedded !== undefined ? '' : ' --analysis ANALYSIS_DIR';
  return [
    `# ${title} of an Instruct/Thinking pair`,
    '',
    `Made with CRANE Studio ${recipe.engineVersion}. Weights: ${recipe.output.dtype === 'source' ? 'each tensor in its source dtype' : recipe.output.dtype}, shards of at most ${recipe.output.maxShardBytes} bytes.`,
    '',
    ...(method.method === 'crane' ? ['## Method', '', CRANE_SUMMARY, ''] : []),
    '## Settings',
    '',
    '```json',
    JSON.stringify(method, null, 2),
    '```',
    '',
    '## Inputs',
    '',
    ...inputs,
    ...analysis,
    ...importance,
    '## Reproduce',
    '',
    `\`${RECIPE_FILE}\` holds every setting and the SHA-256 of every input file. With the same files:`,
    '',
    '```sh',
    `crane merge --recipe ${RECIPE_FILE} --instruct INSTRUCT_DIR --thinking THINKING_DIR${analysisFlag} OUT_DIR`,
    '```',
    '',
    'The same engine version gives the same bytes; inputs whose hashes differ are refused.',
    ...(notes.length === 0 ? [] : ['', '## Notes', '', ...notes.map((n) => `- ${n}`)]),
    '',
  ].join('\n');
}

/** ", kept here as `crane_analysis.safetensors`" for an artifact the export carries a copy of. */
function copyNote(recipe: Recipe, file: string): string {
  const copy = recipe.analysis?.embedded?.[file];
  return copy === undefined ? '' : `, kept here as \`${copy}\``;
}
