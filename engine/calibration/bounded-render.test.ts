import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RENDER_LIMITS, renderBounded, TemplateLimitError } from './bounded-render.ts';
import { writeTokenizerFiles } from './build-tokenizer.ts';
import { ChatTemplate, readBuiltinChatTemplate } from './chat-template.ts';
import { testTokenizer } from './testing/fixture.ts';
import { ModelTokenizer } from './tokenizer.ts';

/** Eight nested loops over ten items: 10⁸ iterations without a single range() call. */
const NESTED_LOOPS = `{% set n = [0,0,0,0,0,0,0,0,0,0] %}${'{% for i in n %}'.repeat(8)}x${'{% endfor %}'.repeat(8)}`;

function limitMessage(source: string, limits = DEFAULT_RENDER_LIMITS): string {
  try {
    renderBounded(new Template(source), {}, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateLimitError);
    return (error as Error).message;
  }
  throw new Error('expected the template to be stopped');
}

describe('renderBounded', () => {
  it('renders a real chat exactly as the unbounded library does, globals included', async () => {
    const source = await readBuiltinChatTemplate();
    const messages = Array.from({ length: 60 }, (_, i) => (i % 2 === 0
      ? { role: 'user', content: `Question ${i}: what is ${i} + ${i}?` }
      : { role: 'assistant', content: `It is ${2 * i}.`, reasoning_content: 'Add.', tool_calls: [{ type: 'function', function: { name: 'f', arguments: { a: [i] } } }] }));
    const context = { messages, add_generation_prompt: true, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] };
    expect(renderBounded(new Template(source), context)).toBe(new Template(source).render(context));
    const globals = '{{ range(3)|join(",") }} {{ range(1, 7, 2)|list }} {{ range(3, 0, -1)|join }} {{ none is none }} {{ True }} {{ namespace(a=1).a }} {{ strftime_now("%Y")|length }}';
    expect(renderBounded(new Template(globals), {})).toBe(new Template(globals).render({}));
    expect(() => renderBounded(new Template('{{ raise_exception("no system role") }}'), {})).toThrow('no system role');
  });

  it('stops template bombs: a 10⁸ range, string and list doubling, and 10⁸ nested iterations', () => {
    expect(limitMessage('{% for i in range(100000000) %}x{% endfor %}')).toBe(`range() of 100000000 items is over the limit of ${2 ** 18}`);
    expect(limitMessage("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}"))
      .toBe(`a string grew to ${2 ** 26} characters, over the limit of ${2 ** 25}`);
    expect(limitMessage('{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}'))
      .toBe(`a list grew to ${2 ** 19} items, over the limit of ${2 ** 18}`);
    // Each list is under the per-list limit; together they pass the bound on memory (lowered: list items are slow to make).
    expect(limitMessage('{% for i in range(100) %}{{ range(10000)|length }}{% endfor %}', { ...DEFAULT_RENDER_LIMITS, maxProducedBytes: 2 ** 22 }))
      .toBe(`stopped after producing ~${2 ** 22} bytes of values in all`);
    // The defaults stop this after 10⁶ steps (seconds); smaller budgets keep the test quick.
    expect(limitMessage(NESTED_LOOPS, { ...DEFAULT_RENDER_LIMITS, maxSteps: 20_000 })).toBe('stopped after 20000 evaluation steps (a loop that runs away?)');
    expect(limitMessage(NESTED_LOOPS, { ...DEFAULT_RENDER_LIMITS, maxSteps: Number.MAX_SAFE_INTEGER, maxMilliseconds: 1 })).toBe('stopped after 0.001 s');
  });

  it('names the checkpoint file whose template was stopped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crane-bomb-'));
    try {
      await writeTokenizerFiles(dir, await testTokenizer());
      await writeFile(join(dir, 'chat_template.jinja'), '{% for i in range(10**8) %}{{ messages[0].content }}{% endfor %}');
      const template = ChatTemplate.fromTokenizer(await ModelTokenizer.load(dir));
      expect(() => template.render([{ role: 'user', content: 'hi' }])).toThrow(
        `${join(dir, 'chat_template.jinja')}: was stopped while rendering: range() of 100000000 items is over the limit of ${2 ** 18}; a chat template must render a chat in bounded time and size`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
