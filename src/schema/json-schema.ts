import {
  type ArrayOptions,
  type SchemaOptions,
  type Static,
  type TSchema,
  type TUnsafe,
  Type,
} from "@sinclair/typebox";

/**
 * TypeBox schemas (the answers' shapes, declared once: their types are `Static<…>` of them and
 * the OpenAPI document's components are written from them) in the forms OpenAPI 3.1 readers
 * expect, where TypeBox's own would be an `anyOf`.
 */

/** One of a few words: `{ type: "string", enum: [...] }`. */
export function StringEnum<const W extends readonly string[]>(
  words: W,
  options: SchemaOptions = {},
): TUnsafe<W[number]> {
  return Type.Unsafe<W[number]>({ type: "string", enum: [...words], ...options });
}

/** The schema's type or null: `type: ["string", "null"]`. */
export function Nullable<T extends TSchema>(schema: T, options: SchemaOptions = {}): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, "null"], ...options });
}

/** Exactly one of the schemas: `oneOf`. */
export function OneOf<const T extends readonly TSchema[]>(
  schemas: T,
  options: SchemaOptions = {},
): TUnsafe<Static<T[number]>> {
  return Type.Unsafe<Static<T[number]>>({ oneOf: [...schemas], ...options });
}

/** An array the type says is read-only (the answer shares such arrays between answers). */
export function ReadonlyArray<T extends TSchema>(items: T, options: ArrayOptions = {}): TUnsafe<readonly Static<T>[]> {
  return Type.Unsafe<readonly Static<T>[]>(Type.Array(items, options));
}
