/** A parsed JSON value that is an object (not null, not an array): what readers of older file versions walk. */
export type JsonObject = { [key: string]: unknown };

export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
