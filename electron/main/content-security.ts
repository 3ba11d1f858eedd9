/**
 * Headers on every response of the app protocol. The renderer needs nothing from the network:
 * its code and assets are our own files and the engine is reached over a MessagePort, so every
 * fetch/WebSocket target is refused ('self' only). No 'unsafe-inline' anywhere: React and the
 * charts set styles through the CSSOM, which CSP allows; e2e/web/desktop-csp.spec.ts loads the
 * real build under this policy and fails on any violation.
 */
const DIRECTIVES: Readonly<Record<string, string>> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data: blob:",
  'font-src': "'self'",
  'connect-src': "'self'",
  'worker-src': "'self' blob:",
  'object-src': "'none'",
  'frame-src': "'none'",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
};

export const CONTENT_SECURITY_POLICY = Object.entries(DIRECTIVES)
  .map(([name, value]) => `${name} ${value}`)
  .join('; ');

export const APP_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
