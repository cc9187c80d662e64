/** Operators of one field in a `where` filter (the service checks which a field's type allows). */
export interface FieldCondition<V> {
  readonly $eq?: V | null;
  readonly $ne?: V | null;
  readonly $gt?: V;
  readonly $gte?: V;
  readonly $lt?: V;
  readonly $lte?: V;
  readonly $in?: readonly V[];
  readonly $nin?: readonly V[];
  readonly $exists?: boolean;
  /** An RE2 regular expression (string fields). */
  readonly $regex?: string;
  /** `"i"`: `$regex` ignores case. */
  readonly $options?: 'i';
}

/**
 * A Mongo-style filter over the fields `F` may filter on (docs/api.md): equality by value
 * (`null` = absent), operators per field, and `$and`, `$or`, `$not`. `Date` values are sent
 * as ISO 8601 strings.
 */
export type Where<F> = {
  readonly [K in keyof F]?: F[K] | null | FieldCondition<F[K]>;
} & {
  readonly $and?: readonly Where<F>[];
  readonly $or?: readonly Where<F>[];
  readonly $not?: Where<F>;
};
