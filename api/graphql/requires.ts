import type { GraphQLSchema } from 'graphql';
import { Extensions } from 'type-graphql';
import { authorize } from '../../domain/access/authorize.ts';
import { widenedByGrant } from '../../domain/access/projectStanding.ts';
import type { Permission } from '../../domain/access/permissions.ts';
import type { GraphqlContext } from './graphqlContext.ts';
import { asGraphqlError, gqlError } from './graphqlError.ts';

const KEY = 'permission';

/**
 * Declares the permission (from THE table, domain/access/permissions.ts) a Query or Mutation field
 * needs. It is stored in the field's schema extensions, where `guardRootFields` reads it and the
 * field-permission test walks it.
 */
export const Requires = (permission: Permission) => Extensions({ [KEY]: permission });

export type RootFieldPermission = { readonly type: 'Query' | 'Mutation'; readonly field: string; readonly permission: Permission | null };

/** Every root field with the permission it declares (null when it declares none: the guard refuses it). */
export const rootFieldPermissions = (schema: GraphQLSchema): RootFieldPermission[] =>
  (['Query', 'Mutation'] as const).flatMap((type) => {
    const root = type === 'Query' ? schema.getQueryType() : schema.getMutationType();
    return Object.values(root?.getFields() ?? {}).map((f) => ({
      type,
      field: f.name,
      permission: (f.extensions?.[KEY] as Permission | undefined) ?? null,
    }));
  });

/**
 * Wraps every Query and Mutation resolver of a built schema: it authorizes the field's declared
 * permission for the request's principal before anything runs, and turns domain and HTTP errors
 * into GraphQL errors carrying the REST error code. A root field that declares no permission
 * stops the schema from being built at all (fail closed). Only root fields are wrapped: nested
 * fields stay plain, synchronous property reads (a 1,000-span page is tens of thousands of them).
 */
export const guardRootFields = (schema: GraphQLSchema): GraphQLSchema => {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const permission = field.extensions?.[KEY] as Permission | undefined;
      if (permission === undefined) throw new Error(`${root!.name}.${field.name} declares no permission: add @Requires(...)`);
      const resolve = field.resolve!;
      field.resolve = async (source, args, context: GraphqlContext, info) => {
        const decision = authorize(context.principal, permission);
        // A project-scoped permission a grant holds: on to the resolver's project check (`requireProjectOf`).
        if (!decision.allowed && !(decision.status === 403 && widenedByGrant(context.principal, permission, context.access.grants)))
          throw gqlError(decision.code, decision.message, decision.status);
        try {
          return await resolve(source, args, context, info);
        } catch (error) {
          throw asGraphqlError(error);
        }
      };
    }
  }
  return schema;
};

/**
 * The project dimension of a field's permission for the project it acts on (api/http/projectAccess.ts):
 * throws `notFound()` when the project is hidden from the caller, 403 when its role there does not
 * hold `permission`.
 */
export const requireProjectOf = (ctx: GraphqlContext, projectRowid: number | null, permission: Permission, notFound: () => Error): void =>
  ctx.access.require(projectRowid, permission, notFound);
