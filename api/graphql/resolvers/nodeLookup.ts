import { authorize } from '../../../domain/access/authorize.ts';
import type { Permission } from '../../../domain/access/permissions.ts';
import { findApiKey } from '../../../projections/apiKeys/apiKeyQueries.ts';
import { findExperiment } from '../../../projections/experiments/experimentQueries.ts';
import { findPrompt, findPromptTag, findPromptVersion, listPromptLabels } from '../../../projections/prompts/promptQueries.ts';
import { findTraceRetentionPolicy } from '../../../projections/retention/traceRetentionPolicyQueries.ts';
import { listSecrets } from '../../../projections/secrets/secretQueries.ts';
import { experimentOf } from '../experimentMappers.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { datasetNodeById } from './datasetResolvers.ts';
import { gqlError } from '../graphqlError.ts';
import { apiKeyOf } from '../apiKeyMappers.ts';
import { userOf } from '../identityMappers.ts';
import { secretOf } from '../secretMappers.ts';
import { traceRetentionPolicyOf } from '../retentionMappers.ts';
import { promptLabelOf, promptOf, promptTagOf, promptVersionOf } from '../promptMappers.ts';
import type { Node } from '../relay.ts';
import { projectOf, sessionOf, spanOf, traceOf } from '../tracingMappers.ts';

const decode = (id: string): { type: string; key: string } | null => {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(id)) return null;
  const text = Buffer.from(id, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon <= 0 ? null : { type: text.slice(0, colon), key: text.slice(colon + 1) };
};

const rowid = (key: string): number | null => (/^\d{1,15}$/.test(key) ? Number(key) : null);

/** Types beyond `read` need the permission their own list needs (another user's key, a secret...). */
const demand = (ctx: GraphqlContext, permission: Permission): void => {
  const decision = authorize(ctx.principal, permission);
  if (!decision.allowed) throw gqlError(decision.code, decision.message, decision.status);
};

const self = (ctx: GraphqlContext, userId: string): boolean => ctx.principal.kind !== 'anonymous' && ctx.principal.userId === userId;

/** `node(id:)`: any object by its global id; unknown ids are a not-found error naming the id. */
export const nodeById = async (ctx: GraphqlContext, id: string): Promise<Node> => {
  const notFound = () => gqlError('node_not_found', `No node with id ${JSON.stringify(id)}`, 404);
  const parsed = decode(id);
  if (parsed === null) throw notFound();
  const { type, key } = parsed;
  const n = rowid(key);
  const l = ctx.loaders;
  let found: Node | null = null;
  switch (type) {
    case 'Project': {
      const row = n === null ? null : await l.project.load(n);
      found = row && projectOf(row);
      break;
    }
    case 'Trace': {
      const row = n === null ? null : await l.trace.load(n);
      found = row && traceOf(row);
      break;
    }
    case 'Span': {
      const row = n === null ? null : await l.span.load(n);
      found = row && spanOf(row, row.project_id);
      break;
    }
    case 'ProjectSession': {
      const row = n === null ? null : await l.session.load(n);
      found = row && sessionOf(row);
      break;
    }
    case 'User': {
      if (!self(ctx, key)) demand(ctx, 'users.manage');
      const row = await l.user.load(key);
      found = row && userOf(row);
      break;
    }
    case 'UserApiKey':
    case 'SystemApiKey': {
      const row = await findApiKey(ctx.deps.pool, key);
      if (type === 'SystemApiKey') demand(ctx, 'apikeys.system.manage');
      else if (row === null || row.ownerUserId === null || !self(ctx, row.ownerUserId)) demand(ctx, 'apikeys.users.manage');
      found = row !== null && row.kind === (type === 'UserApiKey' ? 'user' : 'system') ? apiKeyOf(row) : null;
      break;
    }
    case 'Dataset':
    case 'DatasetVersion':
    case 'DatasetExample':
      found = await datasetNodeById(ctx, type, n);
      break;
    case 'Experiment': {
      const row = n === null ? null : await findExperiment(ctx.deps.pool, { id: n });
      found = row && experimentOf(row);
      break;
    }
    case 'Secret': {
      demand(ctx, 'secrets.manage');
      const page = await listSecrets(ctx.deps.pool, { search: key, afterKey: null, limit: 1000 });
      const row = page.secrets.find((s) => s.key === key);
      found = row === undefined ? null : secretOf(row);
      break;
    }
    case 'Prompt': {
      const row = n === null ? null : await findPrompt(ctx.deps.pool, { id: n });
      found = row && promptOf(row);
      break;
    }
    case 'PromptVersion': {
      const row = n === null ? null : await findPromptVersion(ctx.deps.pool, { id: n });
      found = row && promptVersionOf(row);
      break;
    }
    case 'PromptVersionTag': {
      const row = n === null ? null : await findPromptTag(ctx.deps.pool, n);
      found = row && promptTagOf(row);
      break;
    }
    case 'ProjectTraceRetentionPolicy': {
      const row = n === null ? null : await findTraceRetentionPolicy(ctx.deps.pool, n);
      found = row && traceRetentionPolicyOf(row);
      break;
    }
    case 'PromptLabel': {
      const row = n === null ? undefined : (await listPromptLabels(ctx.deps.pool)).find((l) => l.id === n);
      found = row === undefined ? null : promptLabelOf(row);
      break;
    }
  }
  if (found === null) throw notFound();
  return found;
};
