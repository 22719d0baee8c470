/**
 * The value the JSON tree draws. The tree library lists an array's own property names, `length`
 * among them, as if it were an item; an array is handed to it as an object named `Array(n)` whose
 * keys are the indexes only (each length's class made once), so it reads `Array(3)` with 0, 1, 2.
 */
const listClasses = new Map<number, new () => object>();

const listOf = (length: number): object => {
  let named = listClasses.get(length);
  if (named === undefined) {
    const name = `Array(${length})`;
    named = { [name]: class {} }[name]!;
    listClasses.set(length, named);
  }
  return new named();
};

export const jsonTreeValue = (value: unknown): unknown => {
  if (Array.isArray(value)) {
    const list = listOf(value.length) as Record<number, unknown>;
    value.forEach((item, i) => {
      list[i] = jsonTreeValue(item);
    });
    return list;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonTreeValue(v)]));
  }
  return value;
};
