import { describe, expect, test } from "bun:test";
import { asnCsvRows } from "../../../src/datasets/update/formats/asn-csv.ts";
import { IndexOwners, ownerJson } from "../../../src/ip/answer/owner-json.ts";
import { AsnIndex, compileAsnIndex } from "../../../src/ip/indexes/asn-index.ts";

const index = new AsnIndex(
  compileAsnIndex(
    [...asnCsvRows('16777216,16777471,13335,"Cloudflare, Inc."\n16777472,16777727,201907,"LLC ""SPUTNIK"" \\ Ω"\n')],
    {},
  ),
);

describe("the ASN index's owners with their JSON", () => {
  test("each entry's owner is made once and kept: the same object, its JSON what writing it gives", () => {
    const owners = new IndexOwners(index);
    for (let entry = 0; entry < index.entryCount; entry++) {
      const first = owners.of(entry);
      expect(owners.of(entry)).toBe(first);
      expect(first.owner).toEqual({
        asn: index.asn(entry),
        isp: index.organization(entry),
        organization: index.organization(entry),
      });
      expect(Object.isFrozen(first.owner)).toBe(true);
      expect(first.json).toBe(ownerJson(first.owner));
    }
  });

  test("the members are JSON: quotes, backslashes and non-ASCII names parse back", () => {
    const { json } = new IndexOwners(index).of(1);
    expect(JSON.parse(`{${json}}`)).toEqual({
      isp: 'LLC "SPUTNIK" \\ Ω',
      organization: 'LLC "SPUTNIK" \\ Ω',
      asn: 'AS201907 LLC "SPUTNIK" \\ Ω',
    });
    expect(JSON.parse(`{${ownerJson({ asn: 0, isp: "", organization: "" })}}`)).toEqual({
      isp: "",
      organization: "",
      asn: "",
    });
  });
});
