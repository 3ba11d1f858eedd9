/**
 * JSONL files of chats, one per line: {"messages": [...], "tools"?: [...]} (see chat-schema.ts).
 *
 * API: `parseChatJsonl(text, file)` → `ChatRecord[]`; `await readChatJsonl(path)`.
 * The file must be valid UTF-8 (utf8-text.ts). Blank lines are skipped. Any bad line fails the
 * whole file with a CalibrationError whose message lists each problem as `file:line: field:
 * problem` (up to MAX_REPORTED), because a calibration set that silently loses lines skews
 * gradients without anyone noticing.
 */
import type { z } from 'zod';
import { CalibrationError } from './calibration-error.ts';
import { chatSchema, type Chat } from './chat-schema.ts';
import { readUtf8File } from './utf8-text.ts';

export interface ChatRecord extends Chat {
  readonly file: string;
  /** 1-based line in the source file, for messages that point back at the data (`file:line`). */
  readonly line: number;
}

const MAX_REPORTED = 20;

export async function readChatJsonl(path: string): Promise<ChatRecord[]> {
  return parseChatJsonl(await readUtf8File(path), path);
}

export function parseChatJsonl(text: string, file: string): ChatRecord[] {
  const records: ChatRecord[] = [];
  const problems: string[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      problems.push(`${file}:${line}: not valid JSON (${(error as Error).message})`);
      return;
    }
    const parsed = chatSchema.safeParse(json);
    if (parsed.success) records.push({ ...parsed.data, file, line });
    else for (const issue of parsed.error.issues) problems.push(`${file}:${line}: ${describeIssue(issue)}`);
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_REPORTED);
    const more = problems.length > shown.length ? `\n(${problems.length - shown.length} more problems not shown)` : '';
    const [first, ...rest] = shown as [string, ...string[]];
    const where = first.slice(0, first.indexOf(': '));
    throw new CalibrationError('dataset', where, [first.slice(where.length + 2), ...rest].join('\n') + more);
  }
  if (records.length === 0) throw new CalibrationError('dataset', file, 'holds no chats');
  return records;
}

/** `messages[2].tool_calls[0].arguments: …`; for unions, the branch that got furthest explains best. */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const deepest = issue.errors
      .flat()
      .reduce((best, candidate) => (candidate.path.length > best.path.length ? candidate : best));
    return describeIssue({ ...deepest, path: [...issue.path, ...deepest.path] });
  }
  return `${formatPath(issue.path)}${issue.message}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '';
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  return `${out}: `;
}
