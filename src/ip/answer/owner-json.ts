import type { NetworkOwner } from "../geo/network-owner.ts";
import type { AsnIndex } from "../indexes/asn-index.ts";

/** The answer's "isp", "organization" and "asn" members, as JSON. */
export function ownerJson({ asn, isp, organization }: NetworkOwner): string {
  const quoted = JSON.stringify(organization);
  const ispJson = isp === organization ? quoted : JSON.stringify(isp);
  return `"isp":${ispJson},"organization":${quoted},"asn":${asn ? `"AS${asn} ${quoted.slice(1)}` : '""'}`;
}

/** An owner with its members' JSON. */
export interface OwnerWithJson {
  readonly owner: NetworkOwner;
  readonly json: string;
}

/**
 * Each ASN index entry's owner with its JSON, made the first time an answer names it and
 * kept for the snapshot's life: an answer then copies one string instead of quoting the
 * organisation's name twice and slicing it from the index.
 */
export class IndexOwners {
  private readonly made: (OwnerWithJson | undefined)[];

  constructor(private readonly asn: AsnIndex) {
    this.made = new Array(asn.entryCount);
  }

  of(entry: number): OwnerWithJson {
    let found = this.made[entry];
    if (found === undefined) {
      const organization = this.asn.organization(entry);
      const owner = Object.freeze({ asn: this.asn.asn(entry), isp: organization, organization });
      found = { owner, json: ownerJson(owner) };
      this.made[entry] = found;
    }
    return found;
  }
}
