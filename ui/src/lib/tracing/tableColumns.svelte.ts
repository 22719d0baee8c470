/**
 * Which optional columns a table shows and how wide its preview columns are, kept per table in
 * localStorage so they stay after a reload. Unknown or broken stored values fall back to defaults.
 */
type Stored = { hidden: string[]; widths: Record<string, number> };

const read = (key: string): Stored => {
  try {
    const parsed = JSON.parse(localStorage.getItem(key) ?? '{}') as Partial<Stored>;
    return {
      hidden: Array.isArray(parsed.hidden) ? parsed.hidden.filter((c) => typeof c === 'string') : [],
      widths: Object.fromEntries(Object.entries(parsed.widths ?? {}).filter(([, w]) => typeof w === 'number' && w >= 60 && w <= 2000)),
    };
  } catch {
    return { hidden: [], widths: {} };
  }
};

export class TableColumns {
  hidden = $state<string[]>([]);
  widths = $state<Record<string, number>>({});
  readonly #key: string;

  constructor(table: string) {
    this.#key = `loupe.table.${table}`;
    const stored = read(this.#key);
    this.hidden = stored.hidden;
    this.widths = stored.widths;
  }

  shown = (column: string): boolean => !this.hidden.includes(column);

  toggle = (column: string, show: boolean): void => {
    this.hidden = show ? this.hidden.filter((c) => c !== column) : [...new Set([...this.hidden, column])];
    this.#save();
  };

  width = (column: string, fallback: number): number => this.widths[column] ?? fallback;

  /** A column resized by hand (its heading dragged); small changes from layout are not worth a write. */
  resized = (column: string, px: number): void => {
    const rounded = Math.round(px);
    if (Math.abs((this.widths[column] ?? 0) - rounded) < 2) return;
    this.widths = { ...this.widths, [column]: rounded };
    this.#save();
  };

  #save(): void {
    try {
      localStorage.setItem(this.#key, JSON.stringify({ hidden: this.hidden, widths: this.widths }));
    } catch {
      // storage full or off: the choice holds until the page is left
    }
  }
}
