import { MAX_FILTER_CONDITIONS } from './limits.js';
import { queryError } from './query-error.js';

/** Counts comparisons while a filter is parsed and refuses the one that exceeds the limit. */
export interface ConditionBudget {
  /** Records one more comparison at `path`; throws a 400 when over the limit. */
  take(path: string): void;
}

/** A fresh budget of `limit` comparisons. */
export function conditionBudget(limit: number = MAX_FILTER_CONDITIONS): ConditionBudget {
  let used = 0;
  return {
    take(path: string): void {
      used += 1;
      if (used > limit) throw queryError(path, `more than ${limit} conditions in one query`);
    },
  };
}
