import { GraphQLError, Kind, type ASTNode, type FragmentDefinitionNode, type ValidationContext, type ValidationRule } from 'graphql';
// The CommonJS build: its ESM build imports graphql's .mjs files, a second copy of graphql next to
// the CommonJS one everything else loads ("Cannot use GraphQLScalarType from another realm").
import { createComplexityRule, type ComplexityEstimator } from 'graphql-query-complexity/cjs';
import { MAX_FIRST } from './relay.ts';

/** Deep enough for project → traces → root span → input → value, and session → turns → trace → spans → events. */
export const MAX_DEPTH = 12;
/**
 * About 100 fields on each of 1000 spans, or a page of 100 traces with 10 fields of 50 spans each.
 * A connection inside a connection (projects × traces × spans) is what this stops.
 */
export const MAX_COST = 100_000;

const LIMIT_CODE = 'query_too_complex';

/** Field nesting depth, following fragments (each spread once per path, so cycles cannot loop). */
export const depthLimit =
  (max: number): ValidationRule =>
  (context: ValidationContext) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const depthOf = (node: ASTNode, depth: number, seen: ReadonlySet<string>): number => {
      if (!('selectionSet' in node) || node.selectionSet === undefined) return depth;
      let deepest = depth;
      for (const s of node.selectionSet.selections) {
        if (s.kind === Kind.FIELD) deepest = Math.max(deepest, s.name.value.startsWith('__') ? depth : depthOf(s, depth + 1, seen));
        else if (s.kind === Kind.INLINE_FRAGMENT) deepest = Math.max(deepest, depthOf(s, depth, seen));
        else if (!seen.has(s.name.value)) {
          const fragment = fragments.get(s.name.value);
          if (fragment) deepest = Math.max(deepest, depthOf(fragment, depth, new Set([...seen, s.name.value])));
        }
      }
      return deepest;
    };
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation, 0, new Set());
        if (depth > max) {
          context.reportError(
            new GraphQLError(`Query is too deep: ${depth} levels of fields, at most ${max} allowed`, {
              nodes: [operation],
              extensions: { code: LIMIT_CODE },
            }),
          );
        }
      },
    };
  };

/**
 * Cost: every field costs 1 plus its children, and a connection (a field taking `first`) costs its
 * children once per requested row. `first` is capped at the limit here, so an over-large `first`
 * is refused by its own error naming the argument rather than by cost.
 */
const connectionEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const first = typeof args.first === 'number' && args.first > 0 ? Math.min(args.first, MAX_FIRST) : 1;
  return 1 + childComplexity * first;
};

export const costLimit = (variables: Record<string, unknown> | undefined): ValidationRule =>
  createComplexityRule({
    maximumComplexity: MAX_COST,
    variables: variables ?? {},
    estimators: [connectionEstimator],
    createError: (max, actual) =>
      new GraphQLError(`Query is too costly: estimated cost ${actual} exceeds ${max} (ask for fewer rows or fewer nested connections)`, {
        extensions: { code: LIMIT_CODE },
      }),
  });
