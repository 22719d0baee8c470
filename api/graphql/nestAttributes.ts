type Tree = { [key: string]: Tree | unknown };

const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === null;

const finish = (node: unknown): unknown => {
  if (!isTree(node)) return node;
  const keys = Object.keys(node);
  // Keys 0..n-1 were list items before flattening: make them a list again.
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => finish(node[k]));
  const out: Record<string, unknown> = {};
  for (const k of keys) Object.defineProperty(out, k, { value: finish(node[k]), enumerable: true, writable: true, configurable: true });
  return out;
};

/**
 * Flat dotted attribute keys (what is stored and REST shows) as the nested document Phoenix's
 * GraphQL `Span.attributes` gives: `llm.input_messages.0.message.role` → `{llm: {input_messages:
 * [{message: {role}}]}}`. A key that is both a value and a prefix of others (`a` and `a.b`)
 * keeps its dotted form at the level where they clash, so nothing is lost.
 */
export const nestAttributes = (flat: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const root: Tree = Object.create(null);
  const clashes: [Tree, string, unknown][] = [];
  for (const key of Object.keys(flat).sort()) {
    const parts = key.split('.');
    let node = root;
    let placed = true;
    for (let i = 0; i < parts.length - 1; i++) {
      const part = parts[i]!;
      const next = node[part];
      if (next === undefined) node = node[part] = Object.create(null) as Tree;
      else if (isTree(next)) node = next;
      else {
        clashes.push([node, parts.slice(i).join('.'), flat[key]]);
        placed = false;
        break;
      }
    }
    if (!placed) continue;
    const last = parts.at(-1)!;
    if (node[last] === undefined) node[last] = flat[key];
    else clashes.push([node, last, flat[key]]);
  }
  for (const [node, key, value] of clashes) node[key] = value;
  return finish(root) as Record<string, unknown>;
};
