/** Native folder pickers, one per kind of folder the studio asks for. */
import { dialog, type BrowserWindow, type OpenDialogOptions } from 'electron';
import type { DirectoryPurpose } from '../../engine/protocol/desktop-bridge.ts';

const PICKERS: Readonly<Record<DirectoryPurpose, OpenDialogOptions>> = {
  instruct: { title: 'Choose the Instruct checkpoint folder', properties: ['openDirectory'] },
  thinking: { title: 'Choose the Thinking checkpoint folder', properties: ['openDirectory'] },
  base: { title: 'Choose the Base checkpoint folder (RAIN)', properties: ['openDirectory'] },
  project: { title: 'Open or create a CRANE project folder', properties: ['openDirectory', 'createDirectory'] },
  export: { title: 'Choose where to export the edited checkpoint', buttonLabel: 'Export here', properties: ['openDirectory', 'createDirectory'] },
  calibration: { title: 'Choose the calibration data folder', properties: ['openDirectory'] },
};

export async function pickDirectory(window: BrowserWindow, purpose: DirectoryPurpose): Promise<string | null> {
  const result = await dialog.showOpenDialog(window, PICKERS[purpose]);
  return result.canceled ? null : (result.filePaths[0] ?? null);
}
