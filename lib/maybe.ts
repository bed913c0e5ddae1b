// A value, or a promise of it: the read models' tables answer at once on SQLite (this process's
// connection) and asynchronously on PostgreSQL, and one runner serves both without making the
// synchronous answers wait for a turn of the microtask queue.

export type Maybe<T> = T | Promise<T>;

/** `next(value)`, at once when `value` is not a promise. */
export function then<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Every value, at once when none is a promise. */
export function allOf<T>(values: ReadonlyArray<Maybe<T>>): Maybe<T[]> {
  return values.some((value) => value instanceof Promise) ? Promise.all(values) : values as T[];
}
