/** Every buffer under the prepared data, to hand over without a copy. */
export function buffersOf(value: unknown, found = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) found.add(value.buffer as ArrayBuffer);
  else if (value instanceof Map) for (const v of value.values()) buffersOf(v, found);
  else if (Array.isArray(value)) for (const v of value) buffersOf(v, found);
  else if (value !== null && typeof value === "object" && !(value instanceof Set))
    for (const v of Object.values(value)) buffersOf(v, found);
  return [...found];
}
