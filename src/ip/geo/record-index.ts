import type { ParsedIp } from "../address/parse.ts";
import { type MmdbTree, NO_RECORD } from "./mmdb-tree.ts";

/** No record for the address. */
export const NO_ORDINAL = -1;

/**
 * The records of an MMDB file numbered 0…count−1, so that whatever a snapshot computes
 * per record lives in arrays indexed by that number: an address is a tree walk, then one
 * read in an open-addressing table from the record's data pointer to its number.
 */
export class RecordIndex {
  /** Pairs of (data pointer, record number); a pointer is never 0, so 0 marks a free slot. */
  private readonly slots: Uint32Array;
  private readonly shift: number;

  constructor(
    private readonly tree: MmdbTree,
    /** Each record's data pointer, by record number. */
    readonly pointers: Uint32Array,
  ) {
    let bits = 1;
    while (1 << bits < pointers.length * 2) bits++;
    this.shift = 32 - bits;
    this.slots = new Uint32Array(2 << bits);
    const mask = (1 << bits) - 1;
    for (let ordinal = 0; ordinal < pointers.length; ordinal++) {
      let slot = this.slotOf(pointers[ordinal]);
      while (this.slots[slot * 2] !== 0) slot = (slot + 1) & mask;
      this.slots[slot * 2] = pointers[ordinal];
      this.slots[slot * 2 + 1] = ordinal;
    }
  }

  get count(): number {
    return this.pointers.length;
  }

  /** The number of the address's record, or NO_ORDINAL. */
  ordinalOf(ip: ParsedIp): number {
    const pointer = this.tree.recordPointer(ip);
    if (pointer === NO_RECORD) return NO_ORDINAL;
    const slots = this.slots;
    const mask = (slots.length >>> 1) - 1;
    for (let slot = this.slotOf(pointer); ; slot = (slot + 1) & mask) {
      const key = slots[slot * 2];
      if (key === pointer) return slots[slot * 2 + 1];
      if (key === 0) return NO_ORDINAL;
    }
  }

  /** Fibonacci hashing: the top bits of the pointer times 2³²/φ. */
  private slotOf(pointer: number): number {
    return Math.imul(pointer, 0x9e3779b1) >>> this.shift;
  }
}
