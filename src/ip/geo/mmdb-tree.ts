import type { ParsedIp } from "../address/parse.ts";

export interface MmdbTreeShape {
  readonly nodeCount: number;
  readonly recordSize: number;
  readonly ipVersion: number;
}

const JUMP_BITS = 16;

export interface TreeJumpTables {
  readonly v4After16: Uint32Array;
  readonly v6After16: Uint32Array | null;
}

/** No record for the address. */
export const NO_RECORD = -1;

/**
 * The search tree of an MMDB file, walked with an address that is already parsed.
 * The maxmind reader takes only text, parses it again and reads each of up to 128
 * nodes through a native Buffer call; on the request path that walk cost more than
 * everything else in the lookup, so it is done here on the bytes directly. Decoding
 * the record it finds stays with mmdb-lib's decoder.
 */
export class MmdbTree {
  private readonly nodeCount: number;
  private readonly nodeBytes: number;
  private readonly recordSize: number;
  /**
   * Where the walk stands after an address's first 16 bits, by those bits: one read
   * instead of sixteen dependent ones (256 KiB per family, like the range indexes'
   * bucket tables). IPv4 starts under ::/96 in an IPv6 tree.
   */
  private readonly v4After16: Uint32Array;
  private readonly v6After16: Uint32Array | null;

  /** `bytes` holds the tree (the start of an MMDB file, or a compiled table's tree); `jumps` the tables `jumpTables` gave for it. */
  constructor(
    private readonly bytes: Uint8Array,
    shape: MmdbTreeShape,
    jumps?: TreeJumpTables,
  ) {
    if (shape.recordSize !== 24 && shape.recordSize !== 28 && shape.recordSize !== 32)
      throw new Error(`unsupported record size ${shape.recordSize}`);
    this.nodeCount = shape.nodeCount;
    this.recordSize = shape.recordSize;
    this.nodeBytes = shape.recordSize / 4;
    if (jumps) {
      this.v4After16 = jumps.v4After16;
      this.v6After16 = jumps.v6After16;
      return;
    }
    const hasIPv6 = shape.ipVersion === 6;
    let ipv4Root = 0;
    if (hasIPv6) {
      for (let i = 0; i < 96 && ipv4Root < this.nodeCount; i++) ipv4Root = this.child(ipv4Root, 0);
    }
    this.v4After16 = this.after16Bits(ipv4Root);
    this.v6After16 = hasIPv6 ? this.after16Bits(0) : null;
  }

  /** The tables of where a walk stands after 16 bits, to be stored beside a compiled tree. */
  get jumpTables(): TreeJumpTables {
    return { v4After16: this.v4After16, v6After16: this.v6After16 };
  }

  /** Bytes of the tree proper: what a compiled table copies. */
  get treeBytes(): number {
    return this.nodeCount * this.nodeBytes;
  }

  /**
   * A copy of the tree whose leaves lead to record numbers instead of data offsets:
   * a leaf pointing at `pointers[i]` becomes nodeCount + 16 + i, so `recordPointer`
   * minus nodeCount + 16 is the record's number. A number is never above the offset it
   * replaces (the offsets are distinct), so it fits the record size.
   */
  numberedCopy(pointers: Uint32Array): Uint8Array {
    const count = this.nodeCount;
    const numberOf = new Map<number, number>();
    for (let i = 0; i < pointers.length; i++) numberOf.set(pointers[i], i);
    // Copied: `bytes` may be a Buffer, whose `slice` is a view.
    const copy = new Uint8Array(this.bytes.subarray(0, this.treeBytes));
    const numbered = new MmdbTree(
      copy,
      { nodeCount: count, recordSize: this.recordSize, ipVersion: 4 },
      { v4After16: new Uint32Array(0), v6After16: null },
    );
    for (let node = 0; node < count; node++) {
      for (let bit = 0; bit < 2; bit++) {
        const record = this.child(node, bit);
        if (record > count) numbered.setChild(node, bit, count + 16 + numberOf.get(record)!);
      }
    }
    return copy;
  }

  private after16Bits(root: number): Uint32Array {
    const table = new Uint32Array(1 << JUMP_BITS);
    const fill = (node: number, depth: number, prefix: number): void => {
      if (depth === JUMP_BITS || node >= this.nodeCount) {
        const span = 1 << (JUMP_BITS - depth);
        table.fill(node, prefix * span, (prefix + 1) * span);
        return;
      }
      fill(this.child(node, 0), depth + 1, prefix * 2);
      fill(this.child(node, 1), depth + 1, prefix * 2 + 1);
    };
    fill(root, 0, 0);
    return table;
  }

  /**
   * The record's pointer for the address (a number above the node count that
   * `Reader#get` resolves to the same record), or NO_RECORD. An IPv6 address in
   * an IPv4-only tree has none.
   */
  recordPointer(ip: ParsedIp): number {
    const count = this.nodeCount;
    let node: number;
    if (ip.version === 4) {
      const v4 = ip.v4;
      node = this.v4After16[v4 >>> 16];
      for (let bit = 31 - JUMP_BITS; bit >= 0 && node < count; bit--) node = this.child(node, (v4 >>> bit) & 1);
    } else {
      if (this.v6After16 === null) return NO_RECORD;
      const words = ip.v6;
      node = this.v6After16[words[0] >>> 16];
      for (let i = JUMP_BITS; i < 128 && node < count; i++)
        node = this.child(node, (words[i >>> 5] >>> (31 - (i & 31))) & 1);
    }
    return node > count ? node : NO_RECORD;
  }

  /**
   * Every distinct data pointer of the tree, and how many networks (records that end a
   * walk on data) point at them, from one pass over all nodes. Throws on a record that
   * points past the tree or the data section: a damaged file.
   */
  dataPointers(dataSectionBytes: number): { pointers: number[]; networks: number } {
    const count = this.nodeCount;
    // A data pointer is nodeCount + 16 + offset into the data section.
    const end = count + 16 + dataSectionBytes;
    const seen = new Uint8Array(dataSectionBytes);
    const pointers: number[] = [];
    let networks = 0;
    for (let node = 0; node < count; node++) {
      for (let bit = 0; bit < 2; bit++) {
        const record = this.child(node, bit);
        if (record <= count) continue;
        if (record < count + 16 || record >= end)
          throw new Error(`node ${node} points outside the data section (${record})`);
        networks++;
        const offset = record - count - 16;
        if (seen[offset] === 0) {
          seen[offset] = 1;
          pointers.push(record);
        }
      }
    }
    return { pointers, networks };
  }

  private setChild(node: number, bit: number, value: number): void {
    const b = this.bytes;
    const o = node * this.nodeBytes;
    switch (this.recordSize) {
      case 24: {
        const p = o + bit * 3;
        b[p] = value >>> 16;
        b[p + 1] = value >>> 8;
        b[p + 2] = value;
        return;
      }
      case 28:
        if (bit === 0) {
          b[o + 3] = (b[o + 3] & 0x0f) | ((value >>> 20) & 0xf0);
          b[o] = value >>> 16;
          b[o + 1] = value >>> 8;
          b[o + 2] = value;
        } else {
          b[o + 3] = (b[o + 3] & 0xf0) | ((value >>> 24) & 0x0f);
          b[o + 4] = value >>> 16;
          b[o + 5] = value >>> 8;
          b[o + 6] = value;
        }
        return;
      default: {
        const p = o + bit * 4;
        b[p] = value >>> 24;
        b[p + 1] = value >>> 16;
        b[p + 2] = value >>> 8;
        b[p + 3] = value;
      }
    }
  }

  /** The left (0) or right (1) record of a node. */
  private child(node: number, bit: number): number {
    const b = this.bytes;
    const o = node * this.nodeBytes;
    switch (this.recordSize) {
      case 24: {
        const p = o + bit * 3;
        return (b[p] << 16) | (b[p + 1] << 8) | b[p + 2];
      }
      case 28:
        return bit === 0
          ? ((b[o + 3] & 0xf0) << 20) | (b[o] << 16) | (b[o + 1] << 8) | b[o + 2]
          : ((b[o + 3] & 0x0f) << 24) | (b[o + 4] << 16) | (b[o + 5] << 8) | b[o + 6];
      default: {
        const p = o + bit * 4;
        return ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
      }
    }
  }
}
