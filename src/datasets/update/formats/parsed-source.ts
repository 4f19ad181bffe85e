/** What a format module makes of one source's bytes, after checking them by content. */
export interface ParsedSource<T> {
  /** What compiling the outputs consumes. */
  readonly value: T;
  /** Entries the source yielded, for the update summary and its shrink check. */
  readonly entries: number;
  /** The date of the data as the content states it (a header, a build date), or null. */
  readonly dataDate: string | null;
  /** What the update summary says of the entries it left out (a geofeed's refused rows), if any. */
  readonly note?: string;
}

/** Bytes that are not what the format promises: an error page, another format, damage. */
export class ContentError extends Error {}
