import type { AddressRange } from "../../../ip/address/address-range.ts";
import type { Place } from "../../../ip/indexes/relay-place-index.ts";

/** One address range a feed lists, with the count it gives (1 unless the format carries one). */
export interface FeedEntry {
  readonly range: AddressRange;
  readonly count: number;
  /** What the publisher says the range is for: "AWS us-east-1 EC2", "GitHub actions". */
  readonly label?: string;
  /** Where a relay's egress range says its users are (RFC 8805 geofeed row). */
  readonly place?: Place;
}
