import type { AddressRange } from "../../ip/address/address-range.ts";

/** One address range a feed lists, with the count it gives (1 unless the format carries one). */
export interface FeedEntry {
  readonly range: AddressRange;
  readonly count: number;
}
