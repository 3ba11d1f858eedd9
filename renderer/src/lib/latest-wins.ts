/**
 * Coalesces a stream of requests so at most one is in flight and the newest always wins: a
 * slider that fires 60 inputs a second sends one request, then the latest value once that
 * answers, and never queues the values in between.
 */
export interface LatestWins<P> {
  request(params: P): void;
  /** Drops a pending (not yet sent) request. */
  clear(): void;
  readonly busy: boolean;
}

export function latestWins<P, R>(
  run: (params: P) => Promise<R>,
  handlers: { onResult: (result: R, params: P, superseded: boolean) => void; onError: (error: unknown, params: P) => void },
): LatestWins<P> {
  let pending: { params: P } | undefined;
  let inFlight = false;

  const pump = async () => {
    inFlight = true;
    while (pending !== undefined) {
      const { params } = pending;
      pending = undefined;
      try {
        const result = await run(params);
        handlers.onResult(result, params, pending !== undefined);
      } catch (error) {
        handlers.onError(error, params);
      }
    }
    inFlight = false;
  };

  return {
    request(params) {
      pending = { params };
      if (!inFlight) void pump();
    },
    clear() {
      pending = undefined;
    },
    get busy() {
      return inFlight;
    },
  };
}
