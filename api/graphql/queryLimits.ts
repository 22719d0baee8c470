import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  parse,
  type Source,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
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

const tooComplex = (message: string): GraphQLError => new GraphQLError(message, { extensions: { code: LIMIT_CODE } });

/**
 * Tokens in a query document (names, punctuation, values). The introspection query has 163 and the
 * UI's largest about 300; validating a document takes time in proportion to its size before any
 * rule can refuse it (3,000 aliases: seconds of this thread), so a larger one is not parsed at all.
 */
export const MAX_TOKENS = 5_000;

/** graphql's parse with the token limit, whose refusal carries our code (a 400 like any parse error). */
export const parseWithinLimits = (source: string | Source): DocumentNode => {
  try {
    return parse(source, { maxTokens: MAX_TOKENS });
  } catch (e) {
    if (e instanceof GraphQLError && /\d+ tokens\. Parsing aborted/.test(e.message))
      throw tooComplex(`Query is too large: more than ${MAX_TOKENS} tokens (use fewer aliases or fields)`);
    throw e;
  }
};

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
const connectionEstimator: ComplexityEstimator = ({ args, childComplexity }) => 1 + childComplexity * rowsAsked(args);

const rowsAsked = (args: Record<string, unknown>): number =>
  typeof args.first === 'number' && args.first > 0 ? Math.min(args.first, MAX_FIRST) : 1;

/**
 * Work: what the database does for a query, in rows. A database round trip (a root field, a lookup
 * or connection taking arguments) costs `QUERY_ROWS` (on PGlite one costs about as much as that many
 * rows), plus the rows a connection returns; a field that runs a query of its own without taking
 * arguments (an aggregate such as a project's annotation summaries) declares it with `complexity:
 * QUERY_ROWS`. Everything counts once per row of the connections it is inside. Shape (`MAX_COST`)
 * does not bound this: 1,000 aliases of `spans(first: 30) { name }` cost 91,000 but are 1,000
 * queries and 30,000 rows.
 */
export const QUERY_ROWS = 30;
/**
 * Two pages of 1,000 spans (1,060 each with its project lookup), the projects page (50 projects
 * with their summaries: 1,580), ten datasets with a page of versions, examples and experiments
 * each (2,440), or about 80 small lookups. Resolvers' queries yield to other requests between them
 * (yieldingPool.ts), so other requests wait at most for one query and its rows; this bounds the
 * rest: how much one request may make the database (and the thread) do in all.
 */
export const MAX_ROWS = 2_500;

const workEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const declared = field.extensions?.complexity;
  if (typeof declared === 'number') return declared + childComplexity;
  if (typeof args.first === 'number') {
    const rows = rowsAsked(args);
    return QUERY_ROWS + rows * (1 + childComplexity);
  }
  const roundTrip = type.name === 'Query' || type.name === 'Mutation' || Object.keys(args).length > 0;
  return (roundTrip ? QUERY_ROWS : 0) + childComplexity;
};

/** The library's own refusal of more than `maxQueryNodes` fields is thrown, not reported: report it as ours. */
const NODE_LIMIT = 10_000;

/**
 * A graphql-query-complexity rule whose thrown node-limit error (a query of more than 10,000 fields
 * once fragments are expanded: thousands of aliases, or fragments spread within fragments) becomes
 * a reported validation error with our code, a 400 like every other refusal, instead of escaping
 * validation as a 500.
 */
const reportingNodeLimit =
  (rule: ValidationRule, report: boolean): ValidationRule =>
  (context) => {
    const visitor = rule(context) as {
      OperationDefinition?: { enter?: (...a: unknown[]) => unknown; leave?: (...a: unknown[]) => unknown };
    };
    const phase = visitor.OperationDefinition;
    if (phase?.enter === undefined) return visitor as ReturnType<ValidationRule>;
    const { enter, leave } = phase;
    let refused = false;
    visitor.OperationDefinition = {
      enter(...a: unknown[]) {
        try {
          return enter.apply(visitor, a);
        } catch (e) {
          if (!(e instanceof GraphQLError)) throw e;
          refused = true;
          if (report)
            context.reportError(
              tooComplex(`Query is too large: more than ${NODE_LIMIT} fields once fragments are expanded (use fewer aliases or fragments)`),
            );
          return undefined;
        }
      },
      // Its cost is unknown once it stopped counting: one refusal is enough.
      leave(...a: unknown[]) {
        return refused ? undefined : leave?.apply(visitor, a);
      },
    };
    return visitor as ReturnType<ValidationRule>;
  };

export const costLimit = (variables: Record<string, unknown> | undefined): ValidationRule =>
  reportingNodeLimit(
    createComplexityRule({
      maximumComplexity: MAX_COST,
      maxQueryNodes: NODE_LIMIT,
      variables: variables ?? {},
      estimators: [connectionEstimator],
      createError: (max, actual) =>
        tooComplex(`Query is too costly: estimated cost ${actual} exceeds ${max} (ask for fewer rows or fewer nested connections)`),
    }),
    true,
  );

export const workLimit = (variables: Record<string, unknown> | undefined): ValidationRule =>
  reportingNodeLimit(
    createComplexityRule({
      maximumComplexity: MAX_ROWS,
      maxQueryNodes: NODE_LIMIT,
      variables: variables ?? {},
      estimators: [workEstimator],
      createError: (max, actual) =>
        tooComplex(
          `Query touches too many rows: estimated ${actual} rows exceeds ${max} (each lookup or connection counts ${QUERY_ROWS} plus its rows, once per row around it: ask for fewer aliases, rows or nested connections)`,
        ),
    }),
    // The cost rule has already said it (the same walk, the same limit).
    false,
  );
