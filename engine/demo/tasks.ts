/**
 * The demo task family. Each task is a prompt with a checkable expectation, a step-by-step
 * reasoning trace, and the terse ideal answer. Reasoning genuinely helps: the answers to
 * multi-step arithmetic and table lookups are hard to produce in one step for a tiny model and
 * easy to produce one small step at a time.
 */
import type { ChatMessage, Tool } from '../calibration/chat-schema.ts';
import type { SeededRandom } from '../protocol/seeded-random.ts';
import { CITIES, DEMO_TOOLS, ITEMS, toolDefinition, WEATHER, type DemoToolDef } from './tools.ts';

export type TaskFamily = 'arithmetic' | 'lookup' | 'tool' | 'chat';

export type Expectation =
  | { readonly kind: 'answer'; readonly value: string }
  | { readonly kind: 'tool_call'; readonly name: string; readonly arguments: Readonly<Record<string, string | number>> };

/** The call a tool task expects. */
export type ExpectedToolCall = Extract<Expectation, { kind: 'tool_call' }>;

export interface DemoTask {
  readonly family: TaskFamily;
  readonly prompt: readonly ChatMessage[];
  readonly tools?: readonly Tool[];
  readonly expected: Expectation;
  /** Step-by-step reasoning, one step a line. */
  readonly reasoning: string;
}

/** A chain of 2–3 additions/subtractions of single digits, every partial result in 0..30. */
export function arithmeticTask(rng: SeededRandom): DemoTask {
  let value = rng.int(1, 9);
  const terms = [String(value)];
  const steps: string[] = [];
  for (let i = rng.int(2, 3); i > 0; i--) {
    const n = rng.int(1, 9);
    const op = value - n >= 0 && rng.chance(0.5) ? '-' : '+';
    const next = op === '+' ? value + n : value - n;
    steps.push(`${value} ${op} ${n} = ${next}`);
    terms.push(op, String(n));
    value = next;
  }
  return {
    family: 'arithmetic',
    prompt: [{ role: 'user', content: `Compute ${terms.join(' ')}.` }],
    expected: { kind: 'answer', value: String(value) },
    reasoning: steps.join('\n'),
  };
}

/** Bind three letters to digits, then ask for a sum or difference of two of them. */
export function lookupTask(rng: SeededRandom): DemoTask {
  const letters = rng.shuffle(['a', 'b', 'c', 'd', 'e']).slice(0, 3);
  const values = letters.map(() => rng.int(1, 9));
  const [i, j] = rng.chance(0.5) ? [0, 2] : [1, 0];
  const [x, y] = [values[i] as number, values[j] as number];
  const op = x >= y && rng.chance(0.5) ? '-' : '+';
  const result = op === '+' ? x + y : x - y;
  const table = letters.map((l, k) => `${l} = ${values[k]}`).join(', ');
  return {
    family: 'lookup',
    prompt: [{ role: 'user', content: `${table}. What is ${letters[i]} ${op} ${letters[j]}?` }],
    expected: { kind: 'answer', value: String(result) },
    reasoning: `${letters[i]} = ${x}\n${letters[j]} = ${y}\n${x} ${op} ${y} = ${result}`,
  };
}

/** A request that one of the listed tools answers; the tool list always holds 2–3 tools. */
export function toolTask(rng: SeededRandom): DemoTask {
  const def = rng.pick(DEMO_TOOLS);
  const others = DEMO_TOOLS.filter((t) => t !== def && rng.chance(0.6));
  const listed = [def, ...others].sort((a, b) => a.name.localeCompare(b.name));
  const { question, args, why } = toolRequest(def, rng);
  return {
    family: 'tool',
    tools: listed.map(toolDefinition),
    prompt: [{ role: 'user', content: question }],
    expected: { kind: 'tool_call', name: def.name, arguments: args },
    reasoning: `${why}\nI should call ${def.name}.`,
  };
}

function toolRequest(def: DemoToolDef, rng: SeededRandom): { question: string; args: Record<string, string | number>; why: string } {
  switch (def.name) {
    case 'get_weather': {
      const city = rng.pick(CITIES);
      return { question: `What is the weather in ${city}?`, args: { city }, why: `The user asks about the weather in ${city}.` };
    }
    case 'get_price': {
      const item = rng.pick(ITEMS);
      return { question: `How much does a ${item} cost?`, args: { item }, why: `The user asks for the price of a ${item}.` };
    }
    default: {
      const minutes = rng.int(1, 30);
      return { question: `Set a timer for ${minutes} minutes.`, args: { minutes }, why: `The user wants a timer of ${minutes} minutes.` };
    }
  }
}

/** What the tool "returns" for a call, and the one-line answer built from it. */
export function toolResult(call: ExpectedToolCall, rng: SeededRandom): { response: string; answer: string } {
  const args = call.arguments;
  if (call.name === 'get_weather') {
    const [temp, sky] = [rng.int(-5, 35), rng.pick(WEATHER)];
    return { response: JSON.stringify({ city: args['city'], temp_c: temp, sky }), answer: `It is ${temp} degrees and ${sky} in ${String(args['city'])}.` };
  }
  if (call.name === 'get_price') {
    const price = rng.int(1, 99);
    return { response: JSON.stringify({ item: args['item'], usd: price }), answer: `A ${String(args['item'])} costs ${price} dollars.` };
  }
  return { response: JSON.stringify({ ok: true, minutes: args['minutes'] }), answer: `Your timer for ${String(args['minutes'])} minutes is running.` };
}

const CHATS: readonly (readonly [string, string])[] = [
  ['Hello!', 'Hello! How can I help you?'],
  ['Who are you?', 'I am a small demo assistant.'],
  ['Thanks!', 'You are welcome.'],
  ['Good morning.', 'Good morning! What can I do for you?'],
  ['Can you help me?', 'Yes. Tell me what you need.'],
];

export function chatTask(rng: SeededRandom): DemoTask {
  const [question, answer] = rng.pick(CHATS);
  return {
    family: 'chat',
    prompt: [{ role: 'user', content: question }],
    expected: { kind: 'answer', value: answer },
    reasoning: 'The user is chatting. A short friendly reply is enough.',
  };
}

export const TASK_MAKERS: Readonly<Record<TaskFamily, (rng: SeededRandom) => DemoTask>> = {
  arithmetic: arithmeticTask,
  lookup: lookupTask,
  tool: toolTask,
  chat: chatTask,
};
