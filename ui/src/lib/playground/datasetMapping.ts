/** The dataset version the playground runs over, and where each template variable comes from. */
export type DatasetChoice = {
  readonly datasetId: string;
  readonly versionId: string;
  /** The input keys (and one level of nested keys, dotted) the version's examples have. */
  readonly paths: readonly string[];
  /** Chosen by the person: an input path, or '' for the value typed in the playground. */
  readonly mapping: Readonly<Record<string, string>>;
  readonly exampleCount: number;
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every input key of the examples, and `key.sub` for keys holding objects, in order of first sight. */
export const inputPaths = (inputs: readonly unknown[]): string[] => {
  const seen = new Set<string>();
  for (const input of inputs.slice(0, 200)) {
    if (!isObj(input)) continue;
    for (const [key, value] of Object.entries(input)) {
      seen.add(key);
      if (isObj(value)) for (const sub of Object.keys(value)) seen.add(`${key}.${sub}`);
    }
  }
  return [...seen];
};

/** Where a variable comes from: the person's choice, else the input key of its own name, else the typed value (''). */
export const sourceOf = (choice: DatasetChoice, name: string): string => choice.mapping[name] ?? (choice.paths.includes(name) ? name : '');

/** The mapping as the server takes it: a path per variable, null for the typed value. */
export const mappingFor = (choice: DatasetChoice, variables: readonly string[]): Record<string, string | null> =>
  Object.fromEntries(variables.map((name) => [name, sourceOf(choice, name) || null]));
