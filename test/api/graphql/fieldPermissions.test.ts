import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { Query, Resolver, buildSchemaSync } from 'type-graphql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { graphqlSchema } from '../../../api/graphql/buildGraphqlSchema.ts';
import { guardRootFields, rootFieldPermissions, type RootFieldPermission } from '../../../api/graphql/requires.ts';
import { authorize } from '../../../domain/access/authorize.ts';
import { ALL_PERMISSIONS } from '../../../domain/access/permissions.ts';
import type { Principal } from '../../../domain/access/principal.ts';
import { type Caller, serverWithEveryCaller } from '../../support/everyCaller.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { gql } from './gqlClient.ts';

/**
 * Every Query and Mutation field × every kind of caller, against THE permission table (as the
 * REST route matrix does for /v1): a denied caller gets exactly the code `authorize` gives for the
 * field's declared permission; an allowed one never gets an authorization error. Fields are read
 * from the schema, so a field added later is walked without touching this file, and one that
 * declares no permission fails here (and is refused at run time).
 */

const AUTHZ_CODES = new Set([
  'unauthenticated',
  'auth_disabled',
  'admin_secret_forbidden',
  'api_key_forbidden',
  'system_key_forbidden',
  'admin_required',
  'viewer_forbidden',
  'forbidden',
  'no_permission_declared',
]);

/** A value of the argument's type that passes GraphQL validation (it names nothing real). */
const sample = (type: GraphQLInputType): string => {
  const inner = getNullableType(type) as GraphQLInputType;
  if (isListType(inner)) return `[${sample(inner.ofType)}]`;
  if (isEnumType(inner)) return inner.getValues().find((v) => v.name !== 'SYSTEM')!.name;
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    return `{ ${fields.map((f) => `${f.name}: ${sample(f.type)}`).join(', ')} }`;
  }
  if (isScalarType(inner)) {
    switch (inner.name) {
      case 'Int':
        return '1';
      case 'Float':
        return '1.5';
      case 'Boolean':
        return 'false';
      case 'DateTime':
        return '"2999-01-01T00:00:00Z"';
      default:
        return '"bogus-id"';
    }
  }
  throw new Error(`no sample for ${String(type)}`);
};

/** `query { field(requiredArgs...) { __typename } }` (or `mutation`). */
const operationFor = (kind: 'Query' | 'Mutation', field: GraphQLField<unknown, unknown>): string => {
  const args = field.args.filter((a: GraphQLArgument) => isNonNullType(a.type) && a.defaultValue === undefined);
  const argText = args.length ? `(${args.map((a) => `${a.name}: ${sample(a.type)}`).join(', ')})` : '';
  const selection = isScalarType(getNamedType(field.type)) || isEnumType(getNamedType(field.type)) ? '' : ' { __typename }';
  return `${kind === 'Query' ? 'query' : 'mutation'} { ${field.name}${argText}${selection} }`;
};

const expectOutcome = (field: RootFieldPermission, caller: Caller, reply: { status: number; body: any }) => {
  const where = `${field.type}.${field.field} as ${caller.name}`;
  const codes: string[] = reply.status === 401 ? [reply.body?.code] : (reply.body?.errors ?? []).map((e: any) => e.extensions?.code);
  const decision = authorize(caller.principal, field.permission!);
  if (decision.allowed) {
    assert.ok(reply.status !== 401, `${where}: allowed by the table, got 401`);
    const denied = codes.filter((c) => AUTHZ_CODES.has(c));
    assert.equal(denied, [], `${where}: allowed by the table, got ${denied.join(', ')} (${JSON.stringify(reply.body)})`);
  } else if (decision.status === 401) {
    assert.is(reply.status, 401, `${where}: status`);
    assert.is(reply.body?.code, decision.code, `${where}: code`);
  } else {
    assert.equal(codes, [decision.code], `${where}: codes (${JSON.stringify(reply.body)})`);
    assert.is(reply.body?.data?.[field.field] ?? null, null, `${where}: no data for a denied field`);
  }
};

const walk = async (server: TestServer, callers: readonly Caller[]) => {
  const schema = graphqlSchema();
  let count = 0;
  for (const field of rootFieldPermissions(schema)) {
    const root = field.type === 'Query' ? schema.getQueryType()! : schema.getMutationType()!;
    const operation = operationFor(field.type, root.getFields()[field.field]!);
    for (const caller of callers) {
      expectOutcome(field, caller, await gql(server, operation, {}, caller.as));
      count++;
    }
  }
  return count;
};

// Principals as the route matrix builds them; viewers may only change their own account and keys.
const SELF_SERVICE = new Set(['users.self', 'apikeys.own.create', 'apikeys.own.delete']);

const statics = suite('GraphQL field permissions, statically');

statics('every Query and Mutation field declares a permission from the table', () => {
  const fields = rootFieldPermissions(graphqlSchema());
  assert.ok(fields.filter((f) => f.type === 'Query').length >= 12, 'queries walked');
  assert.ok(fields.filter((f) => f.type === 'Mutation').length >= 15, 'mutations walked');
  for (const f of fields) {
    assert.ok(f.permission !== null, `${f.type}.${f.field} declares no permission (add @Requires(...))`);
    assert.ok(ALL_PERMISSIONS.includes(f.permission!), `${f.type}.${f.field}: ${f.permission} is not in the table`);
  }
});

statics('viewers cannot mutate (beyond their own password, username and keys)', () => {
  const viewer: Principal = { kind: 'user', userId: 'u', role: 'VIEWER' };
  for (const f of rootFieldPermissions(graphqlSchema()).filter((f) => f.type === 'Mutation')) {
    if (SELF_SERVICE.has(f.permission!)) continue;
    assert.not.ok(authorize(viewer, f.permission!).allowed, `Mutation.${f.field} (${f.permission}) is open to viewers`);
  }
});

statics('a field without a declared permission is listed as such, and the schema is not built with it', () => {
  @Resolver()
  class Undeclared {
    @Query(() => String)
    undeclaredField(): string {
      return 'leaked';
    }
  }
  const schema = buildSchemaSync({ resolvers: [Undeclared], validate: false });
  assert.equal(rootFieldPermissions(schema), [{ type: 'Query', field: 'undeclaredField', permission: null }]);
  assert.throws(() => guardRootFields(schema), /Query\.undeclaredField declares no permission/);
});

statics.run();

type Ctx = { server: TestServer; callers: Caller[] };
const test = suite<Ctx>('GraphQL field permissions, auth on', {} as Ctx);

test.before(async (ctx) => {
  Object.assign(ctx, await serverWithEveryCaller());
});
test.after(async (ctx) => {
  await ctx.server.close();
});

test('every Query and Mutation field × every caller answers as the permission table says', async ({ server, callers }) => {
  const count = await walk(server, callers);
  assert.ok(count >= 27 * callers.length, `${count} calls`);
});

test('an expired or invalid credential is answered 401 before any GraphQL runs', async ({ server }) => {
  const reply = await gql(server, '{ viewer { id } }', {}, { bearer: `lpk_nope_${'x'.repeat(43)}` });
  assert.is(reply.status, 401);
  assert.is(reply.body.code, 'unauthenticated');
});

test.run();

const open = suite<{ server: TestServer }>('GraphQL field permissions, auth off', {} as { server: TestServer });
open.before(async (ctx) => {
  ctx.server = await startTestServer();
});
open.after(async (ctx) => {
  await ctx.server.close();
});

open('with auth off everything is open except what issues or lists credentials', async ({ server }) => {
  await walk(server, [{ name: 'anonymous (auth off)', as: undefined, principal: { kind: 'anonymous' } }]);
});

open.run();
