/** The session secret of one `crane serve` run: who holds it may drive the engine. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, URL-safe so it can ride in a query string and a cookie unescaped. */
export function createSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Constant-time comparison. Hashing first gives equal-length inputs (timingSafeEqual requires
 * them) and keeps the candidate's length from leaking through timing.
 */
export function tokensEqual(candidate: string, token: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(candidate), digest(token));
}

/** What a token handed in from outside (a restarted server's previous one) must look like. */
export function isSessionToken(candidate: string): boolean {
  return /^[A-Za-z0-9_-]{43,}$/.test(candidate);
}
