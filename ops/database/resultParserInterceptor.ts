import { SchemaValidationError, type Interceptor } from 'slonik';

/**
 * slonik does not validate `sql.type(schema)` results on its own (docs/reference/stack-notes.md §1): a wrong schema
 * would pass silently. This interceptor runs the Standard Schema validator on every row.
 */
export const createResultParserInterceptor = (): Interceptor => ({
  name: 'result-parser',
  transformRowAsync: async (context, query, row) => {
    const parser = context.resultParser as
      | {
          '~standard': {
            validate: (
              v: unknown,
            ) => Promise<{ issues?: readonly unknown[]; value?: unknown }> | { issues?: readonly unknown[]; value?: unknown };
          };
        }
      | undefined;
    if (!parser) return row;
    const result = await parser['~standard'].validate(row);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    if (result.issues) throw new SchemaValidationError(query as any, row as any, result.issues as any);
    return result.value as typeof row;
  },
});
