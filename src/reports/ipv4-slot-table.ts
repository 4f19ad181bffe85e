const EMPTY = -1;

/**
 * IPv4 address (as its 32-bit number) → slot number, in two typed arrays: open addressing
 * with linear probing, at most half full, deletion by backward shift (no tombstones). 16
 * bytes per address at worst against a Map's 50 or more, and a lookup touches one or two
 * cache lines; the local reports' index holds one entry per reported address.
 */
export class Ipv4SlotTable {
  private keys = new Uint32Array(1024);
  private values = new Int32Array(1024).fill(EMPTY);
  private mask = 1023;
  size = 0;

  private home(key: number): number {
    return (Math.imul(key, 0x9e3779b1) >>> 0) & this.mask;
  }

  get(key: number): number {
    for (let i = this.home(key); ; i = (i + 1) & this.mask) {
      const value = this.values[i];
      if (value === EMPTY || this.keys[i] === key) return value;
    }
  }

  /** Sets the slot of a key not in the table. */
  add(key: number, value: number): void {
    if ((this.size + 1) * 2 > this.values.length) this.resize(this.values.length * 2);
    let i = this.home(key);
    while (this.values[i] !== EMPTY) i = (i + 1) & this.mask;
    this.keys[i] = key;
    this.values[i] = value;
    this.size++;
  }

  delete(key: number): void {
    let i = this.home(key);
    while (this.values[i] !== EMPTY && this.keys[i] !== key) i = (i + 1) & this.mask;
    if (this.values[i] === EMPTY) return;
    this.size--;
    // Backward shift: each later entry of the run moves into the hole when the hole lies between its home and it.
    let hole = i;
    for (let j = (hole + 1) & this.mask; this.values[j] !== EMPTY; j = (j + 1) & this.mask) {
      if (((j - this.home(this.keys[j])) & this.mask) >= ((j - hole) & this.mask)) {
        this.keys[hole] = this.keys[j];
        this.values[hole] = this.values[j];
        hole = j;
      }
    }
    this.values[hole] = EMPTY;
  }

  private resize(capacity: number): void {
    const { keys, values } = this;
    this.keys = new Uint32Array(capacity);
    this.values = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    this.size = 0;
    for (let i = 0; i < values.length; i++) if (values[i] !== EMPTY) this.add(keys[i], values[i]);
  }
}
