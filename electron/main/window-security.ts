/**
 * App-wide hardening, applied before any window exists: every WebContents (ours or any that
 * could appear) may not navigate, open windows or attach <webview>s; the session grants no
 * permission and lets no request reach the network or file:// (the renderer needs neither).
 */
import { app, type Session } from 'electron';

export function hardenWebContents(): void {
  app.on('web-contents-created', (_event, contents) => {
    // The app is one page; any navigation would replace it with something we did not ship.
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
}

const BLOCKED_URLS = ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*', 'ftp://*/*', 'file://*/*'];

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onBeforeRequest({ urls: BLOCKED_URLS }, (_details, callback) => callback({ cancel: true }));
  session.setSpellCheckerEnabled(false);
}
