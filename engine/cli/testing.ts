/** Runs the CLI in-process with captured output, for tests. */
import { main } from './main.ts';

export async function runCli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t), isTty: false });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
