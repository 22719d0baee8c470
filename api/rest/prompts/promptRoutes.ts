import { z } from 'zod';
import { addPromptVersion } from '../../../domain/prompts/addPromptVersion.ts';
import { changePrompt } from '../../../domain/prompts/changePrompt.ts';
import { IDENTIFIER_PATTERN } from '../../../domain/prompts/promptName.ts';
import { promptVersionProblems } from '../../../domain/prompts/promptVersion.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
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
import { fromGlobalId } from '../../http/globalId.ts';
import { HttpError, shown } from '../../http/httpError.ts';
import { refusedAt } from '../../http/httpErrorOf.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { limitParam, single } from '../../http/queryParams.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import { createPromptBody, patchPromptBody, promptJson, promptSchema, promptTagJson, promptTagSchema, tagBody } from './promptJson.ts';
import { promptVersionJson, promptVersionSchema, versionFromJson } from './promptVersionJson.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, pageOf } from '../../http/responseSchemas.ts';

const pageQuery = z.object({ cursor: single, limit: limitParam(100) });

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

/** The domain's refusals of input (a rule of the body) as 422s naming the field under `prefix`, like the edge's own checks. */
const refusing =
  <R>(prefix: string, run: () => Promise<R>) =>
  (): Promise<R> =>
    run().catch((error: unknown) => {
      throw refusedAt(prefix, error);
    });

const versionOr404 = async (lookup: Promise<PromptVersionRow | null>, what: string) => {
  const version = await lookup;
  if (version === null) throw new HttpError(404, 'prompt_version_not_found', `${what} not found`);
  return { data: promptVersionJson(version) };
};

/** The eleven routes of the reference's `prompts` tag. */
export const promptRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/prompts',
      query: pageQuery,
      responses: { 200: pageOf(promptSchema) },
      handler: async ({ query: q }) => {
        return page(await listPrompts(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit }), q.limit, byRowid('Prompt'), promptJson);
      },
    }),

    route({
      method: 'POST',
      path: '/v1/prompts',
      body: createPromptBody,
      responses: { 200: dataOf(promptVersionSchema) },
      handler: async ({ body, command, context }) => {
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
        const { versionId } = await command(
          refusing('body.prompt.', () =>
            addPromptVersion(
              deps.store,
              {
                name: body.prompt.name,
                description: body.prompt.description ?? null,
                metadata: (body.prompt.metadata ?? {}) as JsonObject,
                sourcePromptId: null,
                version,
              },
              context,
            ),
          ),
        );
        return await versionOr404(findPromptVersion(deps.pool, { versionId }), `Prompt version ${versionId}`);
      },
    }),

    route({
      method: 'GET',
      path: '/v1/prompts/:prompt_identifier/versions',
      query: pageQuery,
      responses: { 200: pageOf(promptVersionSchema) },
      handler: async ({ query: q, params }) => {
        const prompt = await resolvePrompt(deps, params.prompt_identifier);
        const rows = await listPromptVersions(deps.pool, { promptId: prompt.prompt_id, cursor: cursorOf(q.cursor), limit: q.limit });
        return page(rows, q.limit, byRowid('PromptVersion'), promptVersionJson);
      },
    }),

    route({
      method: 'GET',
      path: '/v1/prompt_versions/:prompt_version_id',
      responses: { 200: dataOf(promptVersionSchema) },
      handler: async ({ params }) => {
        return { data: promptVersionJson(await resolveVersion(deps, params.prompt_version_id)) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/prompts/:prompt_identifier/tags/:tag_name',
      responses: { 200: dataOf(promptVersionSchema) },
      handler: async ({ params }) => {
        const tag = tagName(params.tag_name);
        const prompt = await resolvePrompt(deps, params.prompt_identifier);
        return await versionOr404(promptVersionByTag(deps.pool, prompt.prompt_id, tag), `Tag "${tag}" of prompt "${prompt.name}"`);
      },
    }),

    route({
      method: 'GET',
      path: '/v1/prompts/:prompt_identifier/latest',
      responses: { 200: dataOf(promptVersionSchema) },
      handler: async ({ params }) => {
        const prompt = await resolvePrompt(deps, params.prompt_identifier);
        return await versionOr404(latestPromptVersion(deps.pool, prompt.prompt_id), `A version of prompt "${prompt.name}"`);
      },
    }),

    route({
      method: 'GET',
      path: '/v1/prompt_versions/:prompt_version_id/tags',
      query: pageQuery,
      responses: { 200: pageOf(promptTagSchema) },
      handler: async ({ query: q, params }) => {
        const version = await resolveVersion(deps, params.prompt_version_id);
        const rows = await listVersionTags(deps.pool, { versionId: version.version_id, cursor: cursorOf(q.cursor), limit: q.limit });
        return page(rows, q.limit, byRowid('PromptVersionTag'), promptTagJson);
      },
    }),

    route({
      method: 'POST',
      path: '/v1/prompt_versions/:prompt_version_id/tags',
      body: tagBody,
      responses: { 204: NO_CONTENT },
      handler: async ({ body, command, params, context }) => {
        const version = await resolveVersion(deps, params.prompt_version_id);
        await command(
          refusing('body.', () =>
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
              context,
            ),
          ),
        );
      },
    }),

    // The tag is looked up among the tags of the version's prompt, as the reference does.
    route({
      method: 'DELETE',
      path: '/v1/prompt_versions/:prompt_version_id/tags/:tag_name',
      responses: { 204: NO_CONTENT },
      handler: async ({ command, params, context }) => {
        const version = await resolveVersion(deps, params.prompt_version_id);
        const name = tagName(params.tag_name);
        await command(
          refusing('path.', () =>
            changePrompt(deps.store, version.prompt_name, { type: 'RemovePromptTag', promptId: version.prompt_id, name }, context),
          ),
        );
      },
    }),

    route({
      method: 'PATCH',
      path: '/v1/prompts/:prompt_identifier',
      body: patchPromptBody,
      responses: { 200: dataOf(promptSchema) },
      handler: async ({ body, command, params, context }) => {
        const prompt = await resolvePrompt(deps, params.prompt_identifier);
        await command(
          refusing('body.', () =>
            changePrompt(
              deps.store,
              prompt.name,
              {
                type: 'UpdatePrompt',
                promptId: prompt.prompt_id,
                ...(body.description !== undefined ? { description: body.description } : {}),
                ...(body.metadata !== undefined ? { metadata: body.metadata as JsonObject } : {}),
              },
              context,
            ),
          ),
        );
        const after = await findPrompt(deps.pool, { promptId: prompt.prompt_id });
        if (after === null) throw new HttpError(404, 'prompt_not_found', `Prompt "${prompt.name}" not found`);
        return { data: promptJson(after) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/prompts/:prompt_identifier',
      responses: { 204: NO_CONTENT },
      handler: async ({ command, params, context }) => {
        const prompt = await resolvePrompt(deps, params.prompt_identifier);
        await command(
          refusing('path.', () => changePrompt(deps.store, prompt.name, { type: 'DeletePrompt', promptId: prompt.prompt_id }, context)),
        );
      },
    }),
  ];
};
