/** The tfjs backend, loaded once per engine process on the first request that runs the model. */
import { activeBackend, initBackend } from '../tensor/backend.ts';

let loading: Promise<unknown> | null = null;

export async function ensureBackend(): Promise<void> {
  if (activeBackend() !== undefined) return;
  loading ??= initBackend().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  await loading;
}
