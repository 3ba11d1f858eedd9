/**
 * How main tells the engine's utility process where the user's data lives: `--data-dir DIR` in
 * its argv. Main writes it (engineProcessArgs), the engine process reads it (dataDirArg).
 */
const DATA_DIR_FLAG = '--data-dir';

export function engineProcessArgs(dataDir: string): string[] {
  return [DATA_DIR_FLAG, dataDir];
}

/** The folder given with the flag, or undefined (absent, empty, or another flag in its place). */
export function dataDirArg(argv: readonly string[]): string | undefined {
  const index = argv.indexOf(DATA_DIR_FLAG);
  const value = index === -1 ? undefined : argv[index + 1];
  return value === undefined || value === '' || value.startsWith('--') ? undefined : value;
}
