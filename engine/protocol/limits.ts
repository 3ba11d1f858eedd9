/** Shared by both ends: the client refuses to send what the host would refuse to read. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
