/**
 * Resolves on a later turn of the event loop, once the I/O waiting meanwhile (a request's
 * bytes) has been seen to: work on the serving thread awaits it between pieces, so no answer
 * waits behind all of them.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
