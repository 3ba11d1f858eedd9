/**
 * RAIN's two calibration files for the demo, in the reference's formats (pipeline/rain-calibration.ts
 * reads them), made from the demo task family with their own seed and the evaluation prompts
 * excluded:
 *   - reasoning (reasoning_calibration_set.json): reasoning prompts with the Thinking sibling's
 *     trace and answer. The demo's chat template opens no <think> on its own (Qwen3's Thinking
 *     template does), so the trace carries its opening tag: RAIN needs both boundaries.
 *   - instructions (instruction_calibration_set.jsonl): tool requests whose prompt states the
 *     format to answer in, with the strict call as the response. The instruction is that
 *     sentence; the spans that follow it are the call's tags and keys; the argument values are
 *     the unrelated part of the response (they answer the request, not the instruction).
 */
import { SeededRandom } from '../protocol/seeded-random.ts';
import { promptKey } from './datasets.ts';
import { strictCall } from './styles.ts';
import { TASK_MAKERS, type DemoTask, type TaskFamily } from './tasks.ts';

export interface RainReasoningSample {
  readonly prompt: string;
  readonly reasoning: string;
  readonly response: string;
}

export interface RainInstructionSample {
  readonly prompt: string;
  readonly reason: string;
  readonly response: string;
  readonly related_prompt_list: readonly {
    readonly instruction_id: string;
    readonly prompt_spans: readonly string[];
    readonly response_spans: readonly string[];
    readonly unrelated_response_spans: readonly string[];
  }[];
  readonly unrelated_response_spans: readonly string[];
}

/** The instruction a RAIN instruction prompt carries (the demo's tool format, stated in words). */
export const TOOL_FORMAT_INSTRUCTION = 'Reply with one <tool_call> block holding a JSON object with "name" and "arguments".';

export function rainCalibrationSets(seed: number, exclude: ReadonlySet<string>): { reasoning: RainReasoningSample[]; instructions: RainInstructionSample[] } {
  const rng = new SeededRandom(seed ^ 0x7a17);
  const fresh = (family: TaskFamily): DemoTask => {
    for (;;) {
      const task = TASK_MAKERS[family](rng);
      if (!exclude.has(promptKey(task))) return task;
    }
  };
  const reasoning = Array.from({ length: 24 }, (_, i) => {
    const task = fresh(i % 2 === 0 ? 'arithmetic' : 'lookup');
    return { prompt: userText(task), reasoning: `<think>\n${task.reasoning}`, response: task.expected.kind === 'answer' ? task.expected.value : '' };
  });
  const instructions = Array.from({ length: 16 }, () => instructionSample(fresh('tool')));
  return { reasoning, instructions };
}

function instructionSample(task: DemoTask): RainInstructionSample {
  if (task.expected.kind !== 'tool_call') throw new RangeError('a RAIN instruction sample is made from a tool task');
  return {
    prompt: `${userText(task)} ${TOOL_FORMAT_INSTRUCTION}`,
    reason: `<think>\n${task.reasoning}`,
    response: strictCall(task.expected),
    related_prompt_list: [{
      instruction_id: 'demo:tool_call_format',
      prompt_spans: [TOOL_FORMAT_INSTRUCTION],
      response_spans: ['<tool_call>', '</tool_call>', '"name"', '"arguments"'],
      unrelated_response_spans: Object.values(task.expected.arguments).map((value) => JSON.stringify(value)),
    }],
    unrelated_response_spans: [],
  };
}

function userText(task: DemoTask): string {
  return task.prompt.map((m) => m.content ?? '').join('\n');
}
