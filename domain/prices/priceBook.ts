import { compileNamePattern, matchSpecificity, type NamePattern } from './namePattern.ts';
import type { ModelPrice } from './tokenPrice.ts';

/** Model names longer than this match nothing: a name is attacker-controlled span content. */
const MAX_NAME_LENGTH = 256;

type Version = { readonly price: ModelPrice; readonly from: number; readonly pattern: NamePattern; readonly custom: boolean };
type Candidate = { readonly specificity: number; readonly version: Version };

/**
 * Every model's price history, and the lookup a span's cost needs: the price in force at a time for
 * a model name and provider. Of the models whose version in force then matches the name, the most
 * specific pattern wins; then one for the span's provider; then an admin's price over the built-in
 * table; then the model name (so the answer never depends on the order prices were given in).
 * Lookups are cached per name and provider: a batch of spans names few models.
 */
export type PriceBook = {
  readonly priceAt: (modelName: string | null, provider: string | null, time: string) => ModelPrice | null;
};

const timeOf = (iso: string | null): number => (iso === null ? Number.NEGATIVE_INFINITY : Date.parse(iso));

export const priceBook = (builtIn: readonly ModelPrice[], custom: readonly ModelPrice[]): PriceBook => {
  const histories = new Map<string, Version[]>();
  const add = (price: ModelPrice, isCustom: boolean) => {
    let pattern: NamePattern;
    try {
      pattern = compileNamePattern(price.namePattern);
    } catch {
      return; // a stored pattern this engine cannot compile prices nothing
    }
    const history = histories.get(price.model) ?? [];
    history.push({ price, from: timeOf(price.effectiveFrom), pattern, custom: isCustom });
    histories.set(price.model, history);
  };
  for (const p of builtIn) add(p, false);
  for (const p of custom) add(p, true);
  for (const history of histories.values()) history.sort((a, b) => a.from - b.from);

  const inForce = (history: readonly Version[], at: number): Version | null => {
    let found: Version | null = null;
    for (const v of history) if (v.from <= at) found = v;
    return found;
  };
  const cache = new Map<string, Map<string, Version[]>>();
  /** The models any version of which matches the name: only those can be in force for it. */
  const matchingHistories = (name: string): Map<string, Version[]> => {
    let found = cache.get(name);
    if (found === undefined) {
      found = new Map();
      for (const [model, history] of histories)
        if (history.some((v) => matchSpecificity(v.pattern, name) !== null)) found.set(model, history);
      cache.set(name, found);
    }
    return found;
  };

  return {
    priceAt: (modelName, provider, time) => {
      if (modelName === null || modelName === '' || modelName.length > MAX_NAME_LENGTH) return null;
      const at = timeOf(time);
      const wanted = provider?.toLowerCase() ?? null;
      let best: Candidate | null = null;
      const better = (a: Candidate, b: Candidate | null): boolean => {
        if (b === null) return true;
        if (a.specificity !== b.specificity) return a.specificity > b.specificity;
        const aProvider = wanted !== null && a.version.price.provider?.toLowerCase() === wanted;
        const bProvider = wanted !== null && b.version.price.provider?.toLowerCase() === wanted;
        if (aProvider !== bProvider) return aProvider;
        if (a.version.custom !== b.version.custom) return a.version.custom;
        return a.version.price.model < b.version.price.model;
      };
      for (const history of matchingHistories(modelName).values()) {
        const version = inForce(history, at);
        if (version === null) continue;
        const specificity = matchSpecificity(version.pattern, modelName);
        if (specificity === null) continue;
        const candidate = { specificity, version };
        if (better(candidate, best)) best = candidate;
      }
      return best?.version.price ?? null;
    },
  };
};
