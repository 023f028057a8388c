/**
 * Settles with `promise`, or with what `onAbort` gives as soon as `signal` aborts — for awaits the
 * underlying work cannot be interrupted in (an SDK's retry sleep, a human's answer). The loser of
 * the race never becomes an unhandled rejection.
 */
export function raceAbort<T, A>(promise: Promise<T>, signal: AbortSignal, onAbort: () => A | Promise<A>): Promise<T | A> {
  promise.catch(() => {});
  if (signal.aborted) return Promise.resolve().then(onAbort);
  return new Promise<T | A>((resolve, reject) => {
    const abort = (): void => {
      Promise.resolve().then(onAbort).then(resolve, reject);
    };
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", abort);
        reject(error);
      },
    );
  });
}
