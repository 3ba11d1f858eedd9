/**
 * The "Open Recent" list, persisted as JSON in the app's userData folder. The OS recent-documents
 * list (app.addRecentDocument) is fed too, but it cannot be read back on every platform, so the
 * menu is built from this list. A missing or corrupt file means an empty list, never a crash.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import { z } from 'zod';

export const MAX_RECENT_PROJECTS = 10;

const fileSchema = z.object({ version: z.literal(1), projects: z.array(z.string()) });

/** `dir` first, without duplicates, at most MAX_RECENT_PROJECTS entries. */
export function addRecent(list: readonly string[], dir: string): string[] {
  return [dir, ...list.filter((entry) => entry !== dir)].slice(0, MAX_RECENT_PROJECTS);
}

export function removeRecent(list: readonly string[], dir: string): string[] {
  return list.filter((entry) => entry !== dir);
}

export async function loadRecentProjects(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const checked = fileSchema.safeParse(parsed);
  if (!checked.success) return [];
  // Only absolute paths go back into the menu, deduplicated and capped as when they were added.
  return [...new Set(checked.data.projects.filter((p) => isAbsolute(p)))].slice(0, MAX_RECENT_PROJECTS);
}

/** Written to a temporary sibling and renamed, so a crash mid-write leaves the old list. */
export async function saveRecentProjects(file: string, projects: readonly string[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ version: 1, projects }, null, 2)}\n`);
  await rename(temporary, file);
}

/** In-memory list with write-through persistence; writes are serialised in call order. */
export class RecentProjects {
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private list: string[],
  ) {}

  static async open(file: string): Promise<RecentProjects> {
    return new RecentProjects(file, await loadRecentProjects(file));
  }

  get projects(): readonly string[] {
    return this.list;
  }

  add(dir: string): Promise<void> {
    return this.update(addRecent(this.list, dir));
  }

  remove(dir: string): Promise<void> {
    return this.update(removeRecent(this.list, dir));
  }

  clear(): Promise<void> {
    return this.update([]);
  }

  private update(next: string[]): Promise<void> {
    this.list = next;
    const snapshot = [...next];
    this.writes = this.writes.then(() => saveRecentProjects(this.file, snapshot)).catch(() => undefined);
    return this.writes;
  }
}
