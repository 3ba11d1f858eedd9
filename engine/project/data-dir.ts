/**
 * The per-user folder where headless hosts (`crane serve`) keep projects nobody named: the demo
 * project and the projects of pairs opened without one. Electron passes its own userData.
 * CRANE_DATA_DIR overrides (tests and e2e runs use a throw-away folder). It is under the user's
 * home, not the shared temp folder, so other users cannot plant or read projects there.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const explicit = env['CRANE_DATA_DIR'];
  if (explicit !== undefined && explicit !== '') return resolve(explicit);
  if (platform === 'win32') return join(env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), 'crane-studio');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'crane-studio');
  return join(env['XDG_DATA_HOME'] ?? join(homedir(), '.local', 'share'), 'crane-studio');
}
