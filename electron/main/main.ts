/**
 * Electron main process: security set-up, the app protocol, the engine's utility process, the
 * studio window, its menu and IPC. Main only wires things together: engine traffic flows over a
 * MessagePort directly between the window and the engine process. It imports no engine code
 * but the desktop-bridge contract and the static-file resolver (eslint rule for electron/main/,
 * and the build refuses a main.mjs that bundles tfjs, tokenizers or jinja).
 *
 * Built by tools/setup/build-electron.ts into dist/electron/main.mjs; the renderer build is
 * read from dist/renderer next to it.
 */
import { app, Menu, MessageChannelMain, protocol, session, utilityProcess, type MessagePortMain } from 'electron';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_SCHEME } from './app-origin.ts';
import { respondToAppRequest } from './app-protocol.ts';
import { pickDirectory } from './dialogs.ts';
import { engineProcessArgs } from '../common/engine-process-args.ts';
import { engineProcessEnv, hostDataDir } from './engine-launch.ts';
import { EngineSupervisor } from './engine-supervisor.ts';
import { registerIpc } from './ipc.ts';
import { launchRequests } from './launch-args.ts';
import { menuTemplate, type MenuActions } from './menu-template.ts';
import { RecentProjects } from './recent-projects.ts';
import { StudioWindow } from './studio-window.ts';
import { hardenSession, hardenWebContents } from './window-security.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const RENDERER_DIR = join(here, '..', 'renderer');
const PRELOAD = join(here, 'preload.cjs');
const ENGINE_ENTRY = join(here, 'engine-process.mjs');

// Must happen before `ready`: a standard, secure scheme gets a real origin, CSP 'self' and fetch.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
app.enableSandbox();
hardenWebContents();

let studio: StudioWindow | undefined;

const supervisor = new EngineSupervisor<MessagePortMain>(
  {
    // The engine keeps the demo project (and pairs opened without a project) in the user's data
    // folder; getPath is only called at fork time, after `ready`.
    fork: () =>
      utilityProcess.fork(ENGINE_ENTRY, engineProcessArgs(hostDataDir(process.env, app.getPath('userData'))), {
        serviceName: 'CRANE engine',
        stdio: 'inherit',
        env: engineProcessEnv(process.env, process.platform),
      }),
    channel: () => {
      const { port1, port2 } = new MessageChannelMain();
      return { enginePort: port1, windowPort: port2 };
    },
  },
  (status) => {
    if (status.state === 'starting') studio?.engineStarting();
    if (status.state !== 'exited') return;
    console.error(`crane: ${status.reason}`);
    studio?.engineExited({ code: status.exitCode, reason: status.reason });
  },
);

async function connectEngine(target: StudioWindow): Promise<{ nonce: string }> {
  const port = await supervisor.connect();
  const status = supervisor.current;
  if (port === undefined) throw new Error(`the engine is not running (${status.state === 'exited' ? status.reason : status.state})`);
  const nonce = randomUUID();
  target.givePort(port, nonce);
  return { nonce };
}

async function main(): Promise<void> {
  await app.whenReady();
  hardenSession(session.defaultSession);
  protocol.handle(APP_SCHEME, (request) => respondToAppRequest(RENDERER_DIR, request.url, request.method));
  const recent = await RecentProjects.open(join(app.getPath('userData'), 'recent-projects.json'));

  const remember = (projectDir: string) => {
    app.addRecentDocument(projectDir);
    void recent.add(projectDir).then(refreshMenu);
  };
  const actions: MenuActions = {
    command: (command) => studio?.menuCommand(command),
    openRecent: (projectDir) => {
      remember(projectDir);
      studio?.openRequest({ kind: 'project', projectDir });
    },
    clearRecent: () => {
      app.clearRecentDocuments();
      void recent.clear().then(refreshMenu);
    },
    restartEngine: () => supervisor.restart(),
  };
  const refreshMenu = () => {
    const context = { recentProjects: recent.projects, isMac: process.platform === 'darwin', developer: !app.isPackaged };
    Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(actions, context)));
  };

  registerIpc({
    studio: () => studio,
    connectEngine,
    restartEngine: () => supervisor.restart(),
    pickDirectory: async (target, purpose) => {
      const dir = await pickDirectory(target.window, purpose);
      // The UI opens projects through this picker, so that is where they become recent.
      if (dir !== null && purpose === 'project') remember(dir);
      return dir;
    },
  });
  refreshMenu();
  supervisor.start();

  const openWindow = () => {
    studio = new StudioWindow(PRELOAD, { packaged: app.isPackaged });
    studio.window.on('closed', () => (studio = undefined));
    void studio.load();
  };
  openWindow();
  const launch = launchRequests(process.argv, process.cwd());
  for (const problem of launch.problems) console.error(`crane: ${problem}`);
  for (const request of launch.requests) studio?.openRequest(request);

  app.on('activate', () => studio === undefined && openWindow());
  app.on('window-all-closed', () => process.platform !== 'darwin' && app.quit());
  app.on('before-quit', () => supervisor.stop());
}

main().catch((error: unknown) => {
  console.error('CRANE Studio failed to start:', error);
  app.exit(1);
});
