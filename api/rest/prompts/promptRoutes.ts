import type Koa from 'koa';
import { z } from 'zod';
import { DomainError } from '../../../domain/errors.ts';
import type { Position } from '../../../domain/eventstore/types.ts';
import { addPromptVersion } from '../../../domain/prompts/addPromptVersion.ts';
import { changePrompt } from '../../../domain/prompts/changePrompt.ts';
import { IDENTIFIER_PATTERN } from '../../../domain/prompts/promptName.ts';
import { promptVersionProblems } from '../../../domain/prompts/promptVersion.ts';
import type { JsonObject } from '../../../domain/tracing/jsonValue.ts';
import {
  findPrompt,
  findPromptVersion,
  latestPromptVersion,
  listPrompts,
  listPromptVersions,
  listVersionTags,
  promptVersionByTag,
  type PromptRow,
  type PromptVersionRow,
} from '../../../projections/prompts/promptQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { commandContextOf } from '../../http/commandContextOf.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { parseBody, parseQuery } from '../../http/parseBody.ts';
import type { RouteDef } from '../../http/route.ts';
import { settle } from '../../http/settle.ts';
import { limitParam, single } from '../../http/queryParams.ts';
import { tracingRoute } from '../tracing/tracingRoute.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import { createPromptBody, patchPromptBody, promptJson, promptTagJson, tagBody } from './promptJson.ts';
import { promptVersionJson, versionFromJson } from './promptVersionJson.ts';

const pageQuery = z.object({ cursor: single, limit: limitParam(100) });

const shown = (raw: string): string => JSON.stringify(raw.length > 100 ? `${raw.slice(0, 100)}…` : raw);

/** `prompt_identifier`: a Prompt GlobalID or a prompt name; anything else is a 422, an unknown prompt a 404. */
const resolvePrompt = async (deps: AppDeps, raw: string): Promise<PromptRow> => {
  const id = fromGlobalId('Prompt', raw);
  let prompt: PromptRow | null;
  if (id !== null && /^\d{1,15}$/.test(id)) prompt = await findPrompt(deps.pool, { id: Number(id) });
  else if (IDENTIFIER_PATTERN.test(raw)) prompt = await findPrompt(deps.pool, { name: raw });
  else
    throw new HttpError(
      422,
      'invalid_prompt_identifier',
      `path.prompt_identifier: ${shown(raw)} is neither a Prompt id nor a prompt name (names match ${IDENTIFIER_PATTERN.source})`,
    );
  if (prompt === null) throw new HttpError(404, 'prompt_not_found', `Prompt ${shown(raw)} not found`);
  return prompt;
};

/** `prompt_version_id`: a PromptVersion GlobalID (422 otherwise); 404 when there is no such version. */
const resolveVersion = async (deps: AppDeps, raw: string): Promise<PromptVersionRow> => {
  const id = fromGlobalId('PromptVersion', raw);
  if (id === null || !/^\d{1,15}$/.test(id))
    throw new HttpError(422, 'invalid_prompt_version_id', `path.prompt_version_id: ${shown(raw)} is not a PromptVersion id`);
  const version = await findPromptVersion(deps.pool, { id: Number(id) });
  if (version === null) throw new HttpError(404, 'prompt_version_not_found', `Prompt version ${shown(raw)} not found`);
  return version;
};

const tagName = (raw: string): string => {
  if (!IDENTIFIER_PATTERN.test(raw))
    throw new HttpError(
      422,
      'invalid_tag_name',
      `path.tag_name: ${shown(raw)} is not a tag name (tag names match ${IDENTIFIER_PATTERN.source})`,
    );
  return raw;
};

/**
 * Runs a command and waits until the read model shows it. The domain's refusals of input (a
 * rule of the body) are answered 422 naming the field under `body.`, like the edge's own checks.
 */
const run = async <R extends { readonly position: Position | null }>(
  prefix: string,
  command: () => Promise<R>,
  deps: AppDeps,
): Promise<R> => {
  try {
    const result = await command();
    await settle(deps.runner, result.position);
    return result;
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid') throw new HttpError(422, error.code, `${prefix}${error.message}`);
    throw error;
  }
};

const versionOr404 = async (lookup: Promise<PromptVersionRow | null>, what: string) => {
  const version = await lookup;
  if (version === null) throw new HttpError(404, 'prompt_version_not_found', `${what} not found`);
  return { data: promptVersionJson(version) };
};

/** The eleven routes of the reference's `prompts` tag. */
export const promptRoutes = (deps: AppDeps): RouteDef[] => [
  tracingRoute('GET', '/v1/prompts', async (ctx) => {
    const q = parseQuery(ctx, pageQuery);
    ctx.body = page(await listPrompts(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit }), q.limit, byRowid('Prompt'), promptJson);
  }),

  tracingRoute('POST', '/v1/prompts', async (ctx: Koa.Context) => {
    const body = parseBody(ctx, createPromptBody);
    if (body.version.template_type !== 'CHAT' || body.version.template.type !== 'chat')
      throw new HttpError(
        422,
        'unsupported_template_type',
        'body.version.template_type: only CHAT templates (template.type "chat") are supported for prompts over REST',
      );
    const version = versionFromJson(body.version);
    const problems = promptVersionProblems(version);
    if (problems.length > 0)
      throw new HttpError(422, 'invalid_prompt_version', problems.map((p) => `body.version.${p.path}: ${p.message}`).join('; '));
    const { versionId } = await run(
      'body.prompt.',
      () =>
        addPromptVersion(
          deps.store,
          {
            name: body.prompt.name,
            description: body.prompt.description ?? null,
            metadata: (body.prompt.metadata ?? {}) as JsonObject,
            sourcePromptId: null,
            version,
          },
          commandContextOf(ctx),
        ),
      deps,
    );
    ctx.body = await versionOr404(findPromptVersion(deps.pool, { versionId }), `Prompt version ${versionId}`);
  }),

  tracingRoute('GET', '/v1/prompts/:prompt_identifier/versions', async (ctx) => {
    const prompt = await resolvePrompt(deps, String(ctx.params.prompt_identifier));
    const q = parseQuery(ctx, pageQuery);
    const rows = await listPromptVersions(deps.pool, { promptId: prompt.prompt_id, cursor: cursorOf(q.cursor), limit: q.limit });
    ctx.body = page(rows, q.limit, byRowid('PromptVersion'), promptVersionJson);
  }),

  tracingRoute('GET', '/v1/prompt_versions/:prompt_version_id', async (ctx) => {
    ctx.body = { data: promptVersionJson(await resolveVersion(deps, String(ctx.params.prompt_version_id))) };
  }),

  tracingRoute('GET', '/v1/prompts/:prompt_identifier/tags/:tag_name', async (ctx) => {
    const tag = tagName(String(ctx.params.tag_name));
    const prompt = await resolvePrompt(deps, String(ctx.params.prompt_identifier));
    ctx.body = await versionOr404(promptVersionByTag(deps.pool, prompt.prompt_id, tag), `Tag "${tag}" of prompt "${prompt.name}"`);
  }),

  tracingRoute('GET', '/v1/prompts/:prompt_identifier/latest', async (ctx) => {
    const prompt = await resolvePrompt(deps, String(ctx.params.prompt_identifier));
    ctx.body = await versionOr404(latestPromptVersion(deps.pool, prompt.prompt_id), `A version of prompt "${prompt.name}"`);
  }),

  tracingRoute('GET', '/v1/prompt_versions/:prompt_version_id/tags', async (ctx) => {
    const version = await resolveVersion(deps, String(ctx.params.prompt_version_id));
    const q = parseQuery(ctx, pageQuery);
    const rows = await listVersionTags(deps.pool, { versionId: version.version_id, cursor: cursorOf(q.cursor), limit: q.limit });
    ctx.body = page(rows, q.limit, byRowid('PromptVersionTag'), promptTagJson);
  }),

  tracingRoute('POST', '/v1/prompt_versions/:prompt_version_id/tags', async (ctx) => {
    const version = await resolveVersion(deps, String(ctx.params.prompt_version_id));
    const body = parseBody(ctx, tagBody);
    await run(
      'body.',
      () =>
        changePrompt(
          deps.store,
          version.prompt_name,
          {
            type: 'SetPromptTag',
            promptId: version.prompt_id,
            versionId: version.version_id,
            name: body.name,
            description: body.description ?? null,
          },
          commandContextOf(ctx),
        ),
      deps,
    );
    ctx.status = 204;
  }),

  // The tag is looked up among the tags of the version's prompt, as the reference does.
  tracingRoute('DELETE', '/v1/prompt_versions/:prompt_version_id/tags/:tag_name', async (ctx) => {
    const version = await resolveVersion(deps, String(ctx.params.prompt_version_id));
    const name = tagName(String(ctx.params.tag_name));
    await run(
      'path.',
      () =>
        changePrompt(
          deps.store,
          version.prompt_name,
          { type: 'RemovePromptTag', promptId: version.prompt_id, name },
          commandContextOf(ctx),
        ),
      deps,
    );
    ctx.status = 204;
  }),

  tracingRoute('PATCH', '/v1/prompts/:prompt_identifier', async (ctx) => {
    const prompt = await resolvePrompt(deps, String(ctx.params.prompt_identifier));
    const body = parseBody(ctx, patchPromptBody);
    await run(
      'body.',
      () =>
        changePrompt(
          deps.store,
          prompt.name,
          {
            type: 'UpdatePrompt',
            promptId: prompt.prompt_id,
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(body.metadata !== undefined ? { metadata: body.metadata as JsonObject } : {}),
          },
          commandContextOf(ctx),
        ),
      deps,
    );
    const after = await findPrompt(deps.pool, { promptId: prompt.prompt_id });
    if (after === null) throw new HttpError(404, 'prompt_not_found', `Prompt "${prompt.name}" not found`);
    ctx.body = { data: promptJson(after) };
  }),

  tracingRoute('DELETE', '/v1/prompts/:prompt_identifier', async (ctx) => {
    const prompt = await resolvePrompt(deps, String(ctx.params.prompt_identifier));
    await run(
      'path.',
      () => changePrompt(deps.store, prompt.name, { type: 'DeletePrompt', promptId: prompt.prompt_id }, commandContextOf(ctx)),
      deps,
    );
    ctx.status = 204;
  }),
];
