import { closeSync, fstatSync, ftruncateSync, openSync } from "node:fs";

/**
 * A counter shared through a memory-mapped file beside the database: every
 * process that changes keys bumps it, and the server compares it on every
 * request for the price of one memory read. A query per request would cost
 * microseconds, and a file watcher could deliver the change after the next request.
 */
export interface ChangeSignal {
  read(): number;
  bump(): void;
}

const SIZE = 8;

export function openChangeSignal(path: string): ChangeSignal {
  const fd = openSync(path, "a+");
  try {
    if (fstatSync(fd).size < SIZE) ftruncateSync(fd, SIZE);
  } finally {
    closeSync(fd);
  }
  const bytes = Bun.mmap(path, { shared: true });
  const view = new DataView(bytes.buffer, bytes.byteOffset, SIZE);
  return {
    read: () => view.getUint32(0, true),
    bump: () => view.setUint32(0, (view.getUint32(0, true) + 1) >>> 0, true),
  };
}

export function inMemoryChangeSignal(): ChangeSignal {
  let value = 0;
  return { read: () => value, bump: () => void value++ };
}
