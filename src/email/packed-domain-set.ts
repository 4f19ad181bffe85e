/** What classification asks of a domain list; a `Set<string>` is one too. */
export interface DomainSet extends Iterable<string> {
  has(domain: string): boolean;
  readonly size: number;
}

/**
 * A read-only set of ASCII domain names packed into three typed arrays: the names back
 * to back, where each starts, and an open-addressing table of (hash, entry) pairs.
 *
 * Looking a name up in a `Set` of the 121,000 disposable domains is a chain of dependent
 * cache misses (table, entry, string cell, characters), paid on every email check in the
 * server; here a lookup reads one table slot and, when the hash matches, the name's
 * bytes. It also keeps 130,000 strings out of the garbage collector's way. Figures in
 * docs/benchmarks.md.
 */
/** A packed set's arrays, as handed between threads (the arrays' buffers transfer without a copy). */
export interface PackedDomainSetParts {
  readonly size: number;
  readonly bytes: Uint8Array;
  readonly starts: Uint32Array;
  readonly slots: Int32Array;
  readonly mask: number;
}

export class PackedDomainSet implements DomainSet {
  readonly size: number;
  private readonly bytes: Uint8Array;
  /** Entry i is bytes[starts[i], starts[i + 1]). */
  private readonly starts: Uint32Array;
  /** Slot s holds the name's hash at 2s and its entry + 1 at 2s + 1 (0: empty). */
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(names: ReadonlySet<string>) {
    const entries = [...names];
    const notAscii = entries.find((name) => /[^\x00-\x7f]/.test(name));
    if (notAscii !== undefined) throw new Error(`not an ASCII domain name: ${JSON.stringify(notAscii)}`);
    this.size = entries.length;
    this.bytes = new TextEncoder().encode(entries.join(""));
    this.starts = new Uint32Array(entries.length + 1);
    for (let i = 0; i < entries.length; i++) this.starts[i + 1] = this.starts[i] + entries[i].length;

    let capacity = 16;
    while (capacity < entries.length * 2) capacity *= 2;
    this.mask = capacity - 1;
    this.slots = new Int32Array(capacity * 2);
    for (let i = 0; i < entries.length; i++) {
      const hash = hashOf(entries[i]);
      let s = hash & this.mask;
      while (this.slots[2 * s + 1] !== 0) s = (s + 1) & this.mask;
      this.slots[2 * s] = hash;
      this.slots[2 * s + 1] = i + 1;
    }
  }

  /** The set another thread packed, from its `parts`. */
  static fromParts(parts: PackedDomainSetParts): PackedDomainSet {
    return Object.assign(Object.create(PackedDomainSet.prototype) as PackedDomainSet, parts);
  }

  /** `parts` read from a file, checked to fit together; throws saying why they do not. */
  static checkedParts(parts: PackedDomainSetParts): PackedDomainSetParts {
    const { size, mask, bytes, starts, slots } = parts;
    if (starts.length !== size + 1 || starts[size] !== bytes.length)
      throw new Error("a list's names do not fit their offsets");
    if (slots.length !== (mask + 1) * 2 || (mask & (mask + 1)) !== 0 || mask + 1 < size)
      throw new Error("a list's table has the wrong size");
    return parts;
  }

  get parts(): PackedDomainSetParts {
    return { size: this.size, bytes: this.bytes, starts: this.starts, slots: this.slots, mask: this.mask };
  }

  has(domain: string): boolean {
    return this.indexOf(domain) !== -1;
  }

  /** The name's position in the order given, or -1: what a table kept beside the set is indexed by. */
  indexOf(domain: string): number {
    const hash = hashOf(domain);
    const slots = this.slots;
    for (let s = hash & this.mask; ; s = (s + 1) & this.mask) {
      const entry = slots[2 * s + 1];
      if (entry === 0) return -1;
      if (slots[2 * s] === hash && this.entryEquals(entry - 1, domain)) return entry - 1;
    }
  }

  /** Every name, in the order given. */
  *[Symbol.iterator](): Generator<string> {
    const bytes = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    for (let i = 0; i < this.size; i++) yield bytes.toString("latin1", this.starts[i], this.starts[i + 1]);
  }

  private entryEquals(entry: number, domain: string): boolean {
    const start = this.starts[entry];
    if (this.starts[entry + 1] - start !== domain.length) return false;
    const bytes = this.bytes;
    for (let k = 0; k < domain.length; k++) {
      if (bytes[start + k] !== domain.charCodeAt(k)) return false;
    }
    return true;
  }
}

/** 32-bit FNV-1a over the UTF-16 code units, as a signed int like the table's cells. */
function hashOf(s: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) hash = Math.imul(hash ^ s.charCodeAt(i), 0x01000193);
  return hash | 0;
}
