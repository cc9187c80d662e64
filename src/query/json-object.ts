/** An object parsed from JSON: string keys, values not yet checked. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Whether `value` is a (JSON) object, as opposed to an array, `null` or a scalar. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
