/**
 * A tiny RAIN triple on disk: the tiny project's Instruct and Thinking (test tokenizer, built-in
 * template) plus a Base = Instruct perturbed by another seed's noise (so τ = Instruct − Base is
 * small and not Thinking's δ), and the two calibration files in the reference's formats.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTinyProject, writeNoisyCopy, type TinyProject } from './tiny-project.ts';

export interface RainTriple extends TinyProject {
  readonly base: string;
  readonly reasoning: string;
  readonly instructions: string;
}

export const RAIN_REASONING = [
  { prompt: 'What is 12 + 30?', reasoning: '<think>\nfirst add the tens, then the ones', response: 'It is 42.' },
  { prompt: 'The weather in Paris?', reasoning: '<think>\nCall get_weather with Paris', response: 'The weather is sunny.' },
  // no <think> in the text: only one boundary, skipped as the reference skips it
  { prompt: 'Check the answer.', reasoning: 'check the answer', response: 'It is 42.' },
];

export const RAIN_INSTRUCTIONS = [
  {
    prompt: 'Answer in Rome style: what is the weather?',
    reason: 'The user asks about the weather in Rome',
    response: 'The weather is sunny in Rome.',
    related_prompt_list: [
      { instruction_id: 'style', prompt_spans: ['Rome style'], response_spans: ['sunny in Rome'], unrelated_response_spans: ['The weather'] },
      { instruction_id: 'question', prompt_spans: ['what is the weather'], response_spans: [], unrelated_response_spans: [] },
    ],
    unrelated_response_spans: ['is'],
  },
  { prompt: 'What is 12 + 30?', reason: 'add the tens', response: 'It is 42.', related_prompt_list: [{ instruction_id: 'n', prompt_spans: ['12 + 30'], response_spans: ['42'] }] },
  // no instructions: counts in S, measures 0
  { prompt: 'Hello', reason: '', response: 'Hi.', related_prompt_list: [] },
];

const jsonl = (rows: readonly unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

export async function writeRainTriple(root: string): Promise<RainTriple> {
  const project = await writeTinyProject(root, { model: { heads: 4, kvHeads: 2, layers: 2 } });
  const base = join(root, 'base');
  await mkdir(base, { recursive: true });
  await writeNoisyCopy(project.instruct, base, 0.05, 1234);
  const data = join(root, 'rain');
  await mkdir(data, { recursive: true });
  const reasoning = join(data, 'reasoning_calibration_set.json');
  const instructions = join(data, 'instruction_calibration_set.jsonl');
  await writeFile(reasoning, JSON.stringify(RAIN_REASONING));
  await writeFile(instructions, jsonl(RAIN_INSTRUCTIONS));
  return { ...project, base, reasoning, instructions };
}
