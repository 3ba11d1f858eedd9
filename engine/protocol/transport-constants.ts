/** Shared by both ends of every transport. */

/** The client refuses to send, and the host to read, a message larger than this. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Where `crane serve` accepts the engine WebSocket. */
export const ENGINE_PATH = '/engine';
