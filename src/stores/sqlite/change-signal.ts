import { closeSync, openSync, readSync, writeSync } from "node:fs";

/**
 * A counter shared through a small file beside the database: every process that
 * changes keys bumps it, and the server compares it as requests arrive. A query per
 * request would cost microseconds, and a file watcher could deliver the change after
 * the next request.
 */
export interface ChangeSignal {
  read(): number;
  bump(): void;
  close(): void;
}

/**
 * A read costs a system call (~1.5 µs), so the file is read at most this often; a change
 * is seen by the first request that arrives later. Bumps by this process are seen at once.
 */
const READ_EVERY_MS = 1;

/**
 * The file is read and written with pread/pwrite, never mapped: a mapping faults (SIGBUS,
 * the process dies) when the file is truncated under it, as `truncate -s 0` or an in-place
 * restore of the data directory does. A short file reads as 0, and the next bump rewrites it.
 */
export function openChangeSignal(path: string): ChangeSignal {
  closeSync(openSync(path, "a"));
  const fd = openSync(path, "r+");
  const bytes = new Uint8Array(4);
  const view = new DataView(bytes.buffer);
  let value = 0;
  let readAt = Number.NEGATIVE_INFINITY;
  const readFile = () => {
    bytes.fill(0);
    readSync(fd, bytes, 0, 4, 0);
    value = view.getUint32(0, true);
    readAt = performance.now();
    return value;
  };
  return {
    read: () => (performance.now() - readAt < READ_EVERY_MS ? value : readFile()),
    bump: () => {
      view.setUint32(0, (readFile() + 1) >>> 0, true);
      writeSync(fd, bytes, 0, 4, 0);
      value = view.getUint32(0, true);
    },
    close: () => closeSync(fd),
  };
}

export function inMemoryChangeSignal(): ChangeSignal {
  let value = 0;
  return { read: () => value, bump: () => void value++, close: () => {} };
}
