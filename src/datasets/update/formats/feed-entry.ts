import type { AddressRange } from "../../../ip/address/address-range.ts";
import type { Place } from "../../../ip/indexes/declared-location-index.ts";

/** One address range a feed lists, with the count it gives (1 unless the format carries one). */
export interface FeedEntry {
  readonly range: AddressRange;
  readonly count: number;
  /** What the publisher says the range is for: "AWS us-east-1 EC2", "GitHub actions". */
  readonly label?: string;
  /** Where a geofeed row says the range is (RFC 8805): a relay's users, an operator's office. */
  readonly place?: Place;
  /** The provider's names for where the range is, most specific first: ["aws:us-east-1-bue-1", "aws:us-east-1"]. */
  readonly regions?: readonly string[];
}
