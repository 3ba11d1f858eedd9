/**
 * Every IPC message is checked against its sender before it is acted on: it must come from the
 * main frame of one of our windows, showing a page of our own origin. A page that somehow got
 * into the window (a navigation that slipped through, an injected iframe) gets nothing from main.
 */
import { isAppUrl } from './app-origin.ts';

export interface SenderInfo {
  /** The URL of the frame that sent the message (null when the frame is gone). */
  readonly frameUrl: string | null;
  /** Whether that frame is the top frame of its WebContents. */
  readonly isMainFrame: boolean;
  /** Whether the WebContents is one of the windows this app created. */
  readonly isOurWindow: boolean;
}

export function isTrustedSender({ frameUrl, isMainFrame, isOurWindow }: SenderInfo): boolean {
  return isOurWindow && isMainFrame && frameUrl !== null && isAppUrl(frameUrl);
}
