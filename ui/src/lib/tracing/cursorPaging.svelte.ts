/**
 * Cursor paging state for a list whose query is described by `key` (filters, sort, range):
 * a stack of `after` cursors, emptied whenever the key changes, so a new filter starts on page 1.
 */
export class CursorPaging {
  #key = $state('');
  #stack = $state<(string | null)[]>([]);
  readonly #currentKey: () => string;

  constructor(key: () => string) {
    this.#currentKey = key;
  }

  #live(): (string | null)[] {
    return this.#key === this.#currentKey() ? this.#stack : [];
  }

  get after(): string | null {
    return this.#live().at(-1) ?? null;
  }

  get pageNo(): number {
    return this.#live().length;
  }

  next(endCursor: string | null): void {
    if (endCursor === null) return;
    const stack = this.#live();
    this.#key = this.#currentKey();
    this.#stack = [...stack, endCursor];
  }

  prev(): void {
    const stack = this.#live();
    this.#key = this.#currentKey();
    this.#stack = stack.slice(0, -1);
  }
}
