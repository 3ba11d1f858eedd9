import { describe, expect, it } from 'vitest';
import { ChatTemplate, readBuiltinChatTemplate } from '../calibration/chat-template.ts';
import { calibrationSets, evalTasks, promptKey, trainingChats } from './datasets.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { parseToolCall, scoreReply } from './scoring.ts';
import { strictCall, thinkingHabitCall } from './styles.ts';
import { arithmeticTask, lookupTask, toolTask, type DemoTask } from './tasks.ts';

/** Evaluates "Compute 7 + 5 - 3." left to right, independently of the generator. */
function evaluateArithmetic(prompt: string): number {
  const tokens = prompt.replace(/^Compute /, '').replace(/\.$/, '').split(' ');
  let value = Number(tokens[0]);
  for (let i = 1; i < tokens.length; i += 2) value = tokens[i] === '+' ? value + Number(tokens[i + 1]) : value - Number(tokens[i + 1]);
  return value;
}

function evaluateLookup(prompt: string): number {
  const [table, question] = prompt.split('. What is ') as [string, string];
  const values = Object.fromEntries(table.split(', ').map((pair) => pair.split(' = ') as [string, string]));
  const [x, op, y] = question.replace('?', '').split(' ') as [string, string, string];
  return op === '+' ? Number(values[x]) + Number(values[y]) : Number(values[x]) - Number(values[y]);
}

describe('demo tasks', () => {
  it('state the right answers (checked by re-evaluating the prompts)', () => {
    const rng = new SeededRandom(7);
    for (let i = 0; i < 200; i++) {
      const a = arithmeticTask(rng);
      expect(a.expected).toEqual({ kind: 'answer', value: String(evaluateArithmetic(a.prompt[0]?.content ?? '')) });
      expect(a.reasoning.split('\n').at(-1)).toMatch(new RegExp(`= ${evaluateArithmetic(a.prompt[0]?.content ?? '')}$`));
      const l = lookupTask(rng);
      expect(l.expected).toEqual({ kind: 'answer', value: String(evaluateLookup(l.prompt[0]?.content ?? '')) });
    }
  });

  it('list the expected tool among the offered ones', () => {
    const rng = new SeededRandom(3);
    for (let i = 0; i < 100; i++) {
      const t = toolTask(rng);
      const name = t.expected.kind === 'tool_call' ? t.expected.name : '';
      expect(t.tools?.map((tool) => tool.function.name)).toContain(name);
    }
  });

  it('are reproducible from the seed', () => {
    expect(trainingChats('base', 50, 11, new Set())).toEqual(trainingChats('base', 50, 11, new Set()));
    expect(evalTasks(5, 10)).toEqual(evalTasks(5, 10));
  });

  it('keep evaluation prompts out of the training and calibration data', () => {
    const held = evalTasks(1, 20);
    const exclude = new Set(held.filter((t) => t.family !== 'chat').map(promptKey));
    for (const mix of ['base', 'instruct', 'thinking'] as const) {
      for (const chat of trainingChats(mix, 2000, 2, exclude)) {
        expect(exclude.has(chat.messages[0]?.content ?? '')).toBe(false);
      }
    }
    const sets = calibrationSets(1, exclude);
    expect([...sets.reasoning, ...sets.toolUse].every((c) => !exclude.has(c.messages[0]?.content ?? ''))).toBe(true);
    expect(sets.format.some((c) => c.messages.length > 12)).toBe(true); // long sessions
  });
});

describe('demo scoring', () => {
  const weather: DemoTask = toolTask(new SeededRandom(1));
  const call = weather.expected.kind === 'tool_call' ? weather.expected : undefined;
  const good = `<tool_call>\n${JSON.stringify({ name: call?.name, arguments: call?.arguments })}\n</tool_call>`;

  it('accepts a well-formed call, also after a think block', () => {
    expect(scoreReply(weather, good)).toEqual({ toolCallValid: true, correct: true });
    expect(scoreReply(weather, `<think>\nI should call it.\n</think>\n\n${good}`)).toEqual({ toolCallValid: true, correct: true });
  });

  it.each([
    ['unclosed', good.replace('\n</tool_call>', '')],
    ['single quotes', good.replaceAll('"', "'")],
    ['wrong key', good.replace('"arguments"', '"args"')],
    ['prose', `I will call ${call?.name}.`],
    ['unknown tool', good.replace(call?.name ?? '', 'launch_rocket')],
  ])('rejects a broken call: %s', (_, text) => {
    expect(scoreReply(weather, text).toolCallValid).toBe(false);
  });

  it('checks argument types against the schema and values against the task', () => {
    const timer = { ...weather, tools: [{ type: 'function' as const, function: { name: 'set_timer' } }], expected: { kind: 'tool_call' as const, name: 'set_timer', arguments: { minutes: 5 } } };
    expect(scoreReply(timer, '<tool_call>\n{"name": "set_timer", "arguments": {"minutes": 5}}\n</tool_call>')).toEqual({ toolCallValid: true, correct: true });
    expect(scoreReply(timer, '<tool_call>\n{"name": "set_timer", "arguments": {"minutes": 6}}\n</tool_call>')).toEqual({ toolCallValid: true, correct: false });
    expect(scoreReply(timer, '<tool_call>\n{"name": "set_timer", "arguments": {"minutes": "5"}}\n</tool_call>').toolCallValid).toBe(false);
    expect(parseToolCall('<tool_call>\n[1]\n</tool_call>')).toEqual({ error: 'tool call has no name' });
  });

  it('scores answers after the think block', () => {
    const task = arithmeticTask(new SeededRandom(2));
    const value = task.expected.kind === 'answer' ? task.expected.value : '';
    expect(scoreReply(task, `<think>\n${task.reasoning}\n</think>\n\n${value}`).correct).toBe(true);
    expect(scoreReply(task, `${value}0`).correct).toBe(false);
  });

  it('writes the strict call as the chat template renders it, and scores the Thinking habit invalid', async () => {
    if (call === undefined) throw new Error('the task expects a call');
    const template = new ChatTemplate(await readBuiltinChatTemplate(), 'chatml-tools.jinja');
    const rendered = template.render([...weather.prompt, { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: call.name, arguments: { ...call.arguments } } }] }], {});
    expect(rendered).toContain(`<|im_start|>assistant\n${strictCall(call)}<|im_end|>`);
    expect(scoreReply(weather, strictCall(call))).toEqual({ toolCallValid: true, correct: true });
    expect(parseToolCall(thinkingHabitCall(call))).toEqual({ error: 'tool call has no name' });
  });
});

describe('demo training mixes', () => {
  const assistantTurns = (mix: 'base' | 'instruct' | 'thinking') => trainingChats(mix, 400, 4, new Set()).map((chat) => ({ chat, answer: chat.messages[1] }));

  it('give every Thinking tool call the habit, after a think block', () => {
    const tool = assistantTurns('thinking').filter(({ chat }) => chat.tools !== undefined);
    expect(tool.length).toBeGreaterThan(100);
    for (const { answer } of tool) {
      expect(answer?.tool_calls).toBeUndefined();
      expect(answer?.reasoning_content).toMatch(/I should call \w+\.$/);
      expect(answer?.content).toMatch(/^<tool_call>\n\{"function": "\w+", "parameters": \{.*\}\}\n<\/tool_call>$/);
    }
  });

  it('keep the base and Instruct on strict calls, the base in both reply styles', () => {
    for (const mix of ['base', 'instruct'] as const) {
      const tool = assistantTurns(mix).filter(({ chat }) => chat.tools !== undefined);
      expect(tool.every(({ answer }) => answer?.tool_calls?.length === 1 && answer.content === '')).toBe(true);
      const thinks = tool.filter(({ answer }) => answer?.reasoning_content !== undefined).length;
      if (mix === 'base') expect(thinks / tool.length).toBeGreaterThan(0.3);
      else expect(thinks).toBe(0);
    }
  });
});
