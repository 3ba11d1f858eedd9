/**
 * The demo's data, all generated from one seed: training chats for the shared base and the two
 * fine-tunes, the calibration sets D_R / D_A / D_F, and a held-out evaluation set whose prompts
 * never occur in any training chat.
 */
import type { Chat, ChatMessage } from '../calibration/chat-schema.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { reply, type ReplyStyle, type ToolCallFormat } from './styles.ts';
import { TASK_MAKERS, toolResult, type DemoTask, type TaskFamily } from './tasks.ts';

export type TrainingMix = 'base' | ReplyStyle;

/**
 * Family weights of the training mixes. The Thinking fine-tune writes a third of its replies as
 * tool calls in its own habit (styles.ts), so its task vector carries that format as strongly as
 * it carries the reasoning traces.
 */
const MIX: Readonly<Record<TrainingMix, Readonly<Record<TaskFamily, number>>>> = {
  base: { arithmetic: 0.3, lookup: 0.3, tool: 0.3, chat: 0.1 },
  instruct: { arithmetic: 0.25, lookup: 0.25, tool: 0.4, chat: 0.1 },
  thinking: { arithmetic: 0.3, lookup: 0.3, tool: 0.35, chat: 0.05 },
};

/** The shared base and Instruct write strict tool calls; the Thinking fine-tune its habit. */
const TOOL_CALLS: Readonly<Record<TrainingMix, ToolCallFormat>> = { base: 'strict', instruct: 'strict', thinking: 'thinking-habit' };

function pickFamily(rng: SeededRandom, weights: Readonly<Record<TaskFamily, number>>): TaskFamily {
  let u = rng.next();
  for (const [family, weight] of Object.entries(weights) as [TaskFamily, number][]) {
    u -= weight;
    if (u < 0) return family;
  }
  return 'chat';
}

export function promptKey(task: Pick<DemoTask, 'prompt'>): string {
  return task.prompt.map((m) => m.content ?? '').join('\u0000');
}

/** The held-out evaluation tasks: a fixed number of each family, from their own seed. */
export function evalTasks(seed: number, perFamily: number): DemoTask[] {
  const rng = new SeededRandom(seed ^ 0x5eed);
  const seen = new Set<string>();
  const tasks: DemoTask[] = [];
  for (const family of ['arithmetic', 'lookup', 'tool', 'chat'] as const) {
    for (let made = 0, tries = 0; made < perFamily && tries < perFamily * 50; tries++) {
      const task = TASK_MAKERS[family](rng);
      if (seen.has(promptKey(task)) && family !== 'chat') continue;
      seen.add(promptKey(task));
      tasks.push(task);
      made++;
    }
  }
  return tasks;
}

/** A task answered in a style; a strict tool call may be followed by the tool's result and the final answer. */
function withReply(task: DemoTask, style: ReplyStyle, toolCalls: ToolCallFormat, rng: SeededRandom, followUp: boolean): Chat {
  const answer = reply(style, task, toolCalls);
  const messages: ChatMessage[] = [...task.prompt, answer];
  if (followUp && task.expected.kind === 'tool_call' && answer.tool_calls !== undefined) {
    const { response, answer: text } = toolResult(task.expected, rng);
    messages.push({ role: 'tool', content: response }, { role: 'assistant', content: text });
  }
  return task.tools === undefined ? { messages } : { messages, tools: [...task.tools] };
}

/** Training chats of a mix; prompts in `exclude` (the eval set) are skipped. */
export function trainingChats(mix: TrainingMix, count: number, seed: number, exclude: ReadonlySet<string>): Chat[] {
  const rng = new SeededRandom(seed);
  const chats: Chat[] = [];
  while (chats.length < count) {
    const task = TASK_MAKERS[pickFamily(rng, MIX[mix])](rng);
    if (task.family !== 'chat' && exclude.has(promptKey(task))) continue;
    const style: ReplyStyle = mix === 'base' ? (rng.chance(0.5) ? 'instruct' : 'thinking') : mix;
    chats.push(withReply(task, style, TOOL_CALLS[mix], rng, rng.chance(0.4)));
  }
  return chats;
}

export interface CalibrationSets {
  /** D_R: reasoning prompts (answered by the Thinking model). */
  readonly reasoning: Chat[];
  /** D_A: tool-use prompts with their tool lists (answered by the Instruct model). */
  readonly toolUse: Chat[];
  /** D_F: whole well-formatted conversations: tool calls, responses, plain chat, long sessions. */
  readonly format: Chat[];
}

export function calibrationSets(seed: number, exclude: ReadonlySet<string>): CalibrationSets {
  const rng = new SeededRandom(seed ^ 0xca11);
  const fresh = (family: TaskFamily) => {
    for (;;) {
      const task = TASK_MAKERS[family](rng);
      if (family === 'chat' || !exclude.has(promptKey(task))) return task;
    }
  };
  const asPrompt = (task: DemoTask): Chat => (task.tools === undefined ? { messages: [...task.prompt] } : { messages: [...task.prompt], tools: [...task.tools] });
  const reasoning = Array.from({ length: 24 }, (_, i) => asPrompt(fresh(i % 2 === 0 ? 'arithmetic' : 'lookup')));
  const toolUse = Array.from({ length: 16 }, () => asPrompt(fresh('tool')));
  const format: Chat[] = [
    ...Array.from({ length: 12 }, () => withReply(fresh('tool'), 'instruct', 'strict', rng, false)),
    ...Array.from({ length: 12 }, () => withReply(fresh('tool'), 'instruct', 'strict', rng, true)),
    ...Array.from({ length: 6 }, () => withReply(fresh('chat'), 'instruct', 'strict', rng, false)),
    ...Array.from({ length: 3 }, () => longSession(rng, fresh)),
  ];
  return { reasoning, toolUse, format };
}

/** Several tool exchanges and chat turns in one conversation (the "long sessions" of D_F). */
function longSession(rng: SeededRandom, fresh: (family: TaskFamily) => DemoTask): Chat {
  const messages: ChatMessage[] = [];
  const tools = new Map<string, NonNullable<DemoTask['tools']>[number]>();
  for (let turn = 0; turn < 5; turn++) {
    const task = fresh(turn % 2 === 0 ? 'tool' : 'chat');
    for (const tool of task.tools ?? []) tools.set(tool.function.name, tool);
    messages.push(...withReply(task, 'instruct', 'strict', rng, true).messages);
  }
  return { messages, tools: [...tools.values()].sort((a, b) => a.function.name.localeCompare(b.function.name)) };
}
