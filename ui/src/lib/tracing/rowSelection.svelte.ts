import { untrack } from 'svelte';
import { SvelteMap } from 'svelte/reactivity';
import type { ChosenSpan } from '../datasets/addSpansApi.ts';

/**
 * The rows ticked in a traces or spans table, by row key, with the span each stands for. Only the
 * visible page is ever ticked: the page clears it whenever it shows other rows.
 */
export class RowSelection {
  readonly #chosen = new SvelteMap<string, ChosenSpan>();

  /** `shown` reads what the table shows (its page): the ticks are cleared whenever it changes. Construct it while a component initialises. */
  constructor(shown: () => unknown) {
    $effect(() => {
      shown();
      untrack(() => this.clear());
    });
  }

  get size(): number {
    return this.#chosen.size;
  }

  /** In the order ticked. */
  get spans(): ChosenSpan[] {
    return [...this.#chosen.values()];
  }

  has(key: string): boolean {
    return this.#chosen.has(key);
  }

  set(key: string, span: ChosenSpan, on: boolean): void {
    if (on) this.#chosen.set(key, span);
    else this.#chosen.delete(key);
  }

  /** Whether every one of the rows is ticked (false for no rows). */
  all(keys: readonly string[]): boolean {
    return keys.length > 0 && keys.every((k) => this.#chosen.has(k));
  }

  /** Ticks every row or none, as the header's box does. */
  setAll(rows: readonly (readonly [string, ChosenSpan])[], on: boolean): void {
    for (const [key, span] of rows) this.set(key, span, on);
  }

  clear(): void {
    this.#chosen.clear();
  }
}
