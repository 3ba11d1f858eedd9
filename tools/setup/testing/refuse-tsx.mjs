// `node --import ./refuse-tsx.mjs …`: every import of tsx fails, in the main thread and in every
// worker thread (workers inherit --import). A run that succeeds under it never loaded tsx: the
// proof build-engine.test.ts asks of the built engine.
import { register } from 'node:module';

const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === 'tsx' || specifier.startsWith('tsx/') || specifier.includes('/node_modules/tsx/')) throw new Error('tsx refused: ' + specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
