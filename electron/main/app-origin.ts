/**
 * The app's own origin. The window loads `crane://app/…` instead of file:// so that the page has
 * a real origin of its own: CSP 'self' means exactly our files, no other file on disk is
 * reachable from the page, and an IPC sender can be recognised by its frame's URL.
 */
export const APP_SCHEME = 'crane';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** True only for URLs of our origin (scheme and host exactly; no user info or port). */
export function isAppUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
}
