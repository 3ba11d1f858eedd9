/**
 * The renderer's one door into the engine (eslint lets renderer/ import `engine/protocol*` and
 * nothing else under engine/): the protocol map, its schemas and types, and the client with its
 * transports. Everything re-exported here is free of Node imports, so it bundles for the browser.
 * The engine side (EngineHost, Handlers) lives in engine/protocol/ and is imported from there.
 */
export * from './protocol/analysis-schemas.ts';
export * from './protocol/checkpoint-schemas.ts';
export * from './protocol/client.ts';
export * from './protocol/common-schemas.ts';
export * from './protocol/desktop-bridge.ts';
export * from './protocol/desktop-connection.ts';
export * from './protocol/errors.ts';
export * from './protocol/evaluation-set.ts';
export * from './protocol/format-bytes.ts';
export * from './protocol/frame.ts';
export * from './protocol/message-port-transport.ts';
export * from './protocol/methods.ts';
export * from './protocol/project-schemas.ts';
export * from './protocol/protected-tokens.ts';
export * from './protocol/reference-only.ts';
export * from './protocol/seeded-random.ts';
export * from './protocol/block-scale.ts';
export * from './protocol/gsp-mask.ts';
export * from './protocol/settings-schemas.ts';
export * from './protocol/settings-defaults.ts';
export * from './protocol/method-parameters.ts';
export * from './protocol/transport-constants.ts';
export * from './protocol/websocket-client.ts';
