import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CalibrationError } from './calibration-error.ts';
import { parseChatJsonl, readChatJsonl } from './chat-dataset.ts';

const good = [
  JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }),
  '',
  JSON.stringify({
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x": 1}' } }] },
      { role: 'tool', content: 'ok', tool_call_id: 'c1', name: 'f' },
      { role: 'assistant', content: 'done', reasoning_content: 'r' },
    ],
  }),
  JSON.stringify({ messages: [{ role: 'assistant', tool_calls: [{ name: 'f', arguments: { y: 2 } }] }] }),
].join('\n');

function problemsOf(text: string): string {
  try {
    parseChatJsonl(text, 'd.jsonl');
  } catch (error) {
    expect(error).toBeInstanceOf(CalibrationError);
    return (error as Error).message;
  }
  throw new Error('expected a CalibrationError');
}

describe('parseChatJsonl', () => {
  it('parses chats, keeps line numbers and normalises content parts and tool calls', () => {
    const records = parseChatJsonl(good, 'd.jsonl');
    expect(records.map((r) => r.line)).toEqual([1, 3, 4]);
    const second = records[1];
    expect(second?.messages[0]?.content).toBe('ab');
    expect(second?.messages[1]?.tool_calls).toEqual([{ id: 'c1', type: 'function', function: { name: 'f', arguments: { x: 1 } } }]);
    expect(second?.tools?.[0]?.function.name).toBe('f');
    expect(records[2]?.messages[0]?.tool_calls).toEqual([{ type: 'function', function: { name: 'f', arguments: { y: 2 } } }]);
  });

  it('names file:line and the field for each malformed line', () => {
    const lines = [
      '{"messages":[{"role":"user","content":"fine"}]}',
      '{"messages":[{"role":"bot","content":"hi"}]}',
      '{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{bad"}}]}]}',
      '{"messages":[{"role":"assistant","tool_calls":[{"name":"f","arguments":"[1]"}]}]}',
      '{"messages":[]}',
      '{"messages":[{"role":"user"}]}',
      '{oops',
      '{"messages":[{"role":"user","content":"x","reasoning_content":"no"}]}',
      '{"messages":[{"role":"assistant"}]}',
    ];
    expect(problemsOf(lines.join('\n')).split('\n')).toEqual([
      'd.jsonl:2: messages[0].role: Invalid option: expected one of "system"|"user"|"assistant"|"tool"',
      'd.jsonl:3: messages[0].tool_calls[0].function.arguments: must be a JSON object (or a string holding one)',
      'd.jsonl:4: messages[0].tool_calls[0].arguments: must be a JSON object (or a string holding one)',
      'd.jsonl:5: messages: Too small: expected array to have >=1 items',
      'd.jsonl:6: messages[0].content: a user message needs string content',
      expect.stringMatching(/^d\.jsonl:7: not valid JSON \(/),
      'd.jsonl:8: messages[0]: only assistant messages may carry tool_calls or reasoning_content',
      'd.jsonl:9: messages[0].content: an assistant message needs content, reasoning_content or tool_calls',
    ]);
  });

  it('rejects a line that is not a chat object and a file without chats', () => {
    expect(problemsOf('[1, 2]')).toMatch(/^d\.jsonl:1: Invalid input: expected object, received array/);
    expect(problemsOf('\n\n')).toBe('d.jsonl: holds no chats');
  });

  it('caps the report at 20 problems', () => {
    const message = problemsOf(Array.from({ length: 30 }, () => '{').join('\n'));
    expect(message.split('\n')).toHaveLength(21);
    expect(message).toMatch(/\(10 more problems not shown\)$/);
  });
});

describe('readChatJsonl', () => {
  it('reads a file and names it when missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crane-chat-'));
    try {
      const path = join(dir, 'set.jsonl');
      await writeFile(path, good);
      expect(await readChatJsonl(path)).toHaveLength(3);
      await expect(readChatJsonl(join(dir, 'nope.jsonl'))).rejects.toThrow(`${join(dir, 'nope.jsonl')}: cannot be read (file not found)`);
      if (process.platform !== 'win32') {
        // A FIFO would block a plain read forever: refused by its file type instead.
        execFileSync('mkfifo', [join(dir, 'pipe.jsonl')]);
        await expect(readChatJsonl(join(dir, 'pipe.jsonl'))).rejects.toThrow(`${join(dir, 'pipe.jsonl')}: cannot be read (is a FIFO (named pipe), not a regular file)`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses invalid UTF-8 naming the file and line instead of replacing the bytes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crane-chat-'));
    try {
      const path = join(dir, 'latin1.jsonl');
      // Line 2 is Latin-1 "café" (0xE9): Node's 'utf8' reading would have turned it into U+FFFD.
      const latin1 = Buffer.from('{"messages":[{"role":"user","content":"caf\xe9"}]}', 'latin1');
      await writeFile(path, Buffer.concat([Buffer.from(`${good.split('\n')[0] ?? ''}\n`), latin1, Buffer.from('\n')]));
      await expect(readChatJsonl(path)).rejects.toThrow(`${path}:2: is not valid UTF-8 (invalid byte 0xe9 at byte 43 of the line)`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
