/**
 * A worker for worker-group tests that does what its workerData says, on the first message it
 * gets: 'echo' posts the message back as { type: 'echo', value }, 'fail' posts
 * { type: 'failed', message }, 'throw' throws (an uncaught error ends the thread), 'exit' ends the
 * thread with code 3, 'hang' never answers. It posts { type: 'ready' } first.
 */
import { parentPort, workerData } from 'node:worker_threads';

export type ScriptedBehaviour = 'echo' | 'fail' | 'throw' | 'exit' | 'hang';

export type FromScripted = { readonly type: 'ready' } | { readonly type: 'echo'; readonly value: number } | { readonly type: 'failed'; readonly message: string };

const behaviour = workerData as ScriptedBehaviour;
const post = (message: FromScripted): void => parentPort?.postMessage(message);

post({ type: 'ready' });
parentPort?.on('message', (value: number) => {
  if (behaviour === 'echo') post({ type: 'echo', value });
  else if (behaviour === 'fail') post({ type: 'failed', message: `no layer ${value}` });
  else if (behaviour === 'throw') throw new Error(`layer ${value} is broken`);
  else if (behaviour === 'exit') process.exit(3);
});
