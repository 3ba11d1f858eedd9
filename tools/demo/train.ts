/**
 * `npm run demo:train`: builds the built-in demo pair from a seed. Trains a shared base on the
 * demo task family (both reply styles, strict tool calls), then fine-tunes it twice — Instruct
 * (terse answers, strict tool calls) and Thinking (<think> traces, tool calls in its own habit,
 * engine/demo/styles.ts) — and writes the base, both checkpoints, the shared tokenizer, the
 * calibration sets and the held-out evaluation set.
 *
 * --scale multiplies every step and chat count (0.01 for a smoke run). --resume reuses a base
 * already in DIR/base when training-report.json says it was trained from the same data and
 * settings (the base is two thirds of the time; a fine-tune's data can change without it).
 * Deterministic on one backend: the same seed and scale give bit-identical checkpoints, resumed
 * or not (the base is stored in F32).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildTokenizer, writeTokenizerFiles, type BuiltTokenizer } from '../../engine/calibration/build-tokenizer.ts';
import type { Chat } from '../../engine/calibration/chat-schema.ts';
import { ChatTemplate, readBuiltinChatTemplate } from '../../engine/calibration/chat-template.ts';
import { tokenizeChat } from '../../engine/calibration/chat-tokens.ts';
import { ModelTokenizer } from '../../engine/calibration/tokenizer.ts';
import { calibrationSets, evalTasks, promptKey, trainingChats, type TrainingMix } from '../../engine/demo/datasets.ts';
import { demoModelConfig, demoPaths } from '../../engine/demo/demo-layout.ts';
import { evalSetLine, verifyChats } from '../../engine/demo/eval-set.ts';
import { rainCalibrationSets } from '../../engine/demo/rain-sets.ts';
import { writeCheckpoint } from '../../engine/io/checkpoint-writer.ts';
import { packWindows } from '../../engine/model/training/packing.ts';
import { trainPhase } from '../../engine/model/training/train-phase.ts';
import { TrainableModel } from '../../engine/model/training/trainable-model.ts';
import { initBackend } from '../../engine/tensor/backend.ts';
import { exitWithUsageError, parseCli, type CliSpec } from '../cli-args.ts';
import { loadTrainedBase } from './trained-base.ts';
import { loopedDemoTraining } from './looped-pair.ts';
import { describeUsage, moeDemoTraining } from './moe-pair.ts';

export const DEMO_SEED = 20261130;
const WINDOW = 256;
const PHASES = {
  base: { chats: 24000, steps: 1600, peakLearningRate: 3e-3, warmupSteps: 50 },
  instruct: { chats: 6000, steps: 400, peakLearningRate: 1e-3, warmupSteps: 20 },
  thinking: { chats: 6000, steps: 400, peakLearningRate: 1e-3, warmupSteps: 20 },
} as const;

const CLI = {
  usage: ['node --import tsx tools/demo/train.ts [--pair dense|moe|looped] [--out DIR] [--scale F] [--resume]', 'npm run demo:train -- [the same options]'],
  options: {
    pair: { type: 'string', value: 'dense|moe|looped', default: 'dense', help: 'which demo pair to build' },
    out: { type: 'string', value: 'DIR', help: "where to write it (default: the pair's assets/demo* folder)" },
    scale: { type: 'string', value: 'F', default: '1', help: 'multiplies every step and chat count (0.01 for a smoke run)' },
    resume: { type: 'boolean', help: 'reuse the base in DIR/base when it was trained from the same data and settings' },
  },
} as const satisfies CliSpec;
const { values: args } = parseCli(CLI);
if (!['dense', 'moe', 'looped'].includes(args.pair)) exitWithUsageError(CLI, `--pair must be dense, moe or looped (got ${args.pair})`);
const moe = args.pair === 'moe' ? moeDemoTraining : null;
const looped = args.pair === 'looped' ? loopedDemoTraining : null;
const paths = (moe ?? looped)?.paths(args.out) ?? demoPaths(args.out);
const phases = moe?.phases ?? looped?.phases ?? PHASES;
const scale = Number(args.scale);
const started = Date.now();
const log = (text: string) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${text}\n`);

await initBackend();
const evalSet = evalTasks(DEMO_SEED, 30);
const exclude = new Set(evalSet.filter((t) => t.family !== 'chat').map(promptKey));
const chats = Object.fromEntries(
  (['base', 'instruct', 'thinking'] as const).map((mix, i) => [mix, trainingChats(mix, Math.max(100, Math.round(phases[mix].chats * scale)), DEMO_SEED + 1 + i, exclude)]),
) as Record<TrainingMix, Chat[]>;
const calibration = calibrationSets(DEMO_SEED, exclude);

const chatTemplate = await (looped?.chatTemplate ?? readBuiltinChatTemplate)();
const builtinTemplate = new ChatTemplate(chatTemplate, looped?.templateName ?? 'chatml-tools.jinja');
// From the base's data only, so the base does not depend on how the fine-tunes write.
const corpus = [...chats.base.slice(0, 3500), ...calibration.format].map((c) => builtinTemplate.render(c.messages, { tools: c.tools })).join('\n');
const built: BuiltTokenizer = looped?.buildTokenizer(corpus, chatTemplate) ?? buildTokenizer({ corpus, chatTemplate, vocabSize: 640 });
const tokenizer = ModelTokenizer.fromContents({ tokenizerJson: built.tokenizerJson, tokenizerConfig: built.tokenizerConfig });
const template = ChatTemplate.fromTokenizer(tokenizer);
const endOfTurn = tokenizer.requireTokenId('<|im_end|>');
const config = (moe?.modelConfig ?? looped?.modelConfig ?? demoModelConfig)(tokenizer.vocabSize, endOfTurn);
log(`tokenizer: ${tokenizer.vocabSize} tokens; data: ${chats.base.length}/${chats.instruct.length}/${chats.thinking.length} chats`);

/** Base pre-training learns every token; fine-tunes learn only the assistant turns. */
function windowsOf(mix: TrainingMix) {
  const tokenized = chats[mix].map((chat, i) => tokenizeChat(chat, tokenizer, template, { label: `${mix} chat ${i}` }));
  const masked = tokenized.map((t) => (mix === 'base' ? { ids: t.ids, lossMask: new Uint8Array(t.ids.length).fill(1) } : t));
  return packWindows(masked, WINDOW);
}

/** The MoE pair's expert usage over each phase's last 50 steps, for the report. */
const expertUsage: Partial<Record<TrainingMix, number[][]>> = {};

function train(model: TrainableModel, mix: TrainingMix, seed: number): number {
  const phase = phases[mix];
  const objective = moe?.objective(model);
  const windows = windowsOf(mix);
  const steps = Math.max(2, Math.round(phase.steps * scale));
  log(`${mix}: ${windows.length} windows of ${WINDOW} tokens, ${steps} steps`);
  return trainPhase(objective ?? model, windows, {
    ...phase,
    steps,
    warmupSteps: Math.min(phase.warmupSteps, Math.max(1, Math.floor(steps / 4))),
    batchWindows: 4,
    seed,
    onStep: (step, loss, lr) => {
      if (step % 50 !== 0 && step !== steps - 1) return;
      const usage = objective?.takeUsage();
      if (usage !== undefined) expertUsage[mix] = usage;
      log(`${mix} step ${step}/${steps} loss ${loss.toFixed(4)} lr ${lr.toExponential(2)}${usage === undefined ? '' : ` experts ${describeUsage(usage)}`}`);
    },
  });
}

async function save(model: TrainableModel, dir: string, tokenizerFiles: BuiltTokenizer): Promise<void> {
  const tensors = model.tensors();
  const byName = new Map(tensors.map((t) => [t.spec.name, t.data]));
  await rm(dir, { recursive: true, force: true });
  await writeCheckpoint(dir, {
    specs: tensors.map((t) => t.spec),
    produce: async (spec) => byName.get(spec.name) as Float32Array,
    metadata: { format: 'pt' },
    writeSideFiles: async (work) => {
      await writeFile(join(work, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
      await writeFile(join(work, 'generation_config.json'), `${JSON.stringify({ eos_token_id: [endOfTurn], do_sample: false }, null, 2)}\n`);
      await writeTokenizerFiles(work, tokenizerFiles);
    },
  });
}

const jsonl = (rows: readonly unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
await mkdir(paths.data, { recursive: true });
await writeFile(paths.reasoning, jsonl(calibration.reasoning));
await writeFile(paths.toolUse, jsonl(calibration.toolUse));
await writeFile(paths.format, jsonl(calibration.format));
await writeFile(paths.eval, `${evalSet.map(evalSetLine).join('\n')}\n`);
const verifySet = verifyChats(evalSet);
await writeFile(paths.evalReasoning, jsonl(verifySet.reasoning));
await writeFile(paths.evalToolUse, jsonl(verifySet.toolUse));
const rain = rainCalibrationSets(DEMO_SEED, exclude);
await writeFile(paths.rainReasoning, `${JSON.stringify(rain.reasoning, null, 1)}\n`);
await writeFile(paths.rainInstructions, jsonl(rain.instructions));

/** What the base is trained from: a resumed base must have been made from exactly this. */
const baseKey = createHash('sha256').update(JSON.stringify({ seed: DEMO_SEED, scale, window: WINDOW, config, phase: phases.base, tokenizer: built.tokenizerJson, chats: chats.base })).digest('hex');
type PhaseRecord = { readonly loss: number; readonly seconds: number };
const record: Record<string, PhaseRecord> = {};
const report = () => ({ seed: DEMO_SEED, scale, window: WINDOW, phases, baseKey, trained: record, seconds: Object.values(record).reduce((sum, r) => sum + r.seconds, 0), ...(moe === null ? {} : { expertUsage }) });

function timed(run: () => number): PhaseRecord {
  const start = Date.now();
  const loss = run();
  return { loss, seconds: (Date.now() - start) / 1000 };
}

async function resumableBase(): Promise<TrainableModel | undefined> {
  if (args.resume !== true) return undefined;
  const previous = JSON.parse(await readFile(paths.report, 'utf8').catch(() => '{}')) as { baseKey?: string; trained?: Record<string, PhaseRecord> };
  if (previous.baseKey !== baseKey || previous.trained?.['base'] === undefined) {
    log(`--resume: ${paths.report} records no base of these data and settings; training it`);
    return undefined;
  }
  record['base'] = previous.trained['base'];
  log(`--resume: base from ${paths.base}`);
  return loadTrainedBase(paths.base, config);
}

let base = await resumableBase();
if (base === undefined) {
  const model = TrainableModel.random(config, DEMO_SEED);
  record['base'] = timed(() => train(model, 'base', DEMO_SEED + 10));
  await save(model, paths.base, built);
  await writeFile(paths.report, `${JSON.stringify(report(), null, 2)}\n`);
  log(`wrote ${paths.base}`);
  base = model;
}
for (const [mix, dir, seed] of [['instruct', paths.instruct, DEMO_SEED + 20], ['thinking', paths.thinking, DEMO_SEED + 30]] as const) {
  const model = base.copy();
  record[mix] = timed(() => train(model, mix, seed));
  await save(model, dir, built);
  model.dispose();
  log(`wrote ${dir}`);
}
base.dispose();
await writeFile(paths.report, `${JSON.stringify(report(), null, 2)}\n`);
log(`done: ${JSON.stringify(record)}`);
