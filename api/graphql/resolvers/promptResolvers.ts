import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import { changePromptLabels, setPromptLabels } from '../../../domain/prompts/changePromptLabels.ts';
import { IDENTIFIER_PATTERN } from '../../../domain/prompts/promptName.ts';
import {
  findPrompt,
  findPromptVersion,
  latestPromptVersion,
  listPromptLabels,
  listPrompts,
  promptLabelUsage,
  listPromptTags,
  listPromptVersions,
  listVersionTags,
  promptVersionByTag,
  promptVersionPosition,
} from '../../../projections/prompts/promptQueries.ts';
import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { promptLabelOf, promptOf, promptTagOf, promptVersionOf } from '../promptMappers.ts';
import { checkFirst, connectionOf, emptyConnection, parseAfter, type Connection } from '../relay.ts';
import { Requires } from '../requires.ts';
import {
  CreatePromptLabelInput,
  DeletePromptLabelsInput,
  PatchPromptLabelInput,
  Prompt,
  PromptConnection,
  PromptLabel,
  PromptLabelAssociationMutationPayload,
  PromptLabelDeleteMutationPayload,
  PromptLabelMutationPayload,
  PromptVersion,
  PromptVersionConnection,
  PromptVersionTag,
  SetPromptLabelsInput,
  UnsetPromptLabelsInput,
} from '../types/promptTypes.ts';
import { noNul } from './inputText.ts';

/** The row id inside a GlobalID of `type`, or a 422-like error naming the argument. */
const rowidOf = (type: string, raw: string, argument: string): number => {
  const id = fromGlobalId(type, raw);
  if (id === null || !/^\d{1,15}$/.test(id))
    throw gqlError('invalid_input', `Argument "${argument}": ${JSON.stringify(raw)} is not a ${type} id`);
  return Number(id);
};

@Resolver()
export class PromptQueryResolver {
  @Query(() => PromptConnection, { description: 'Prompts, newest first' })
  @Requires('read')
  async prompts(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('nameContains', () => String, { nullable: true, description: 'Case-insensitive, literal' }) nameContains?: string | null,
    @Arg('labelIds', () => [ID], { nullable: true, description: 'Prompts carrying any of these labels' }) labelIds?: string[] | null,
  ): Promise<Connection<Prompt>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Prompt');
    if (from.kind === 'end') return emptyConnection();
    if (nameContains?.includes('\u0000')) throw gqlError('invalid_input', 'Argument "nameContains": must not contain NUL characters');
    const rows = await listPrompts(ctx.deps.pool, {
      cursor: from.kind === 'from' ? from.rowid : null,
      limit,
      nameContains: nameContains ?? null,
      labelIds: labelIds?.map((id, i) => rowidOf('PromptLabel', id, `labelIds.${i}`)) ?? null,
    });
    return connectionOf(rows, limit, 'Prompt', promptOf, from.kind === 'from');
  }

  @Query(() => Prompt, { nullable: true })
  @Requires('read')
  async getPromptByName(@Ctx() ctx: GraphqlContext, @Arg('name', () => String) name: string): Promise<Prompt | null> {
    if (!IDENTIFIER_PATTERN.test(name)) return null;
    const row = await findPrompt(ctx.deps.pool, { name });
    return row === null ? null : promptOf(row);
  }

  @Query(() => [PromptLabel], { description: 'Every prompt label, by name' })
  @Requires('read')
  async promptLabels(@Ctx() ctx: GraphqlContext): Promise<PromptLabel[]> {
    return (await listPromptLabels(ctx.deps.pool)).map(promptLabelOf);
  }
}

@Resolver(() => Prompt)
export class PromptFieldResolver {
  @FieldResolver(() => PromptVersion, {
    nullable: true,
    description: 'One version: by id, by tag, or (with neither) the latest; null when there is none',
  })
  async version(
    @Root() prompt: Prompt,
    @Ctx() ctx: GraphqlContext,
    @Arg('versionId', () => ID, { nullable: true }) versionId?: string | null,
    @Arg('tagName', () => String, { nullable: true }) tagName?: string | null,
  ): Promise<PromptVersion | null> {
    const pool = ctx.deps.pool;
    const row =
      versionId != null
        ? await findPromptVersion(pool, { id: rowidOf('PromptVersion', versionId, 'versionId') })
        : tagName != null
          ? await promptVersionByTag(pool, prompt.promptUuid, tagName)
          : await latestPromptVersion(pool, prompt.promptUuid);
    return row !== null && row.prompt_id === prompt.promptUuid ? promptVersionOf(row) : null;
  }

  @FieldResolver(() => PromptVersionConnection, { description: 'Versions, newest first' })
  async promptVersions(
    @Root() prompt: Prompt,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<PromptVersion>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'PromptVersion');
    if (from.kind === 'end') return emptyConnection();
    const rows = await listPromptVersions(ctx.deps.pool, {
      promptId: prompt.promptUuid,
      cursor: from.kind === 'from' ? from.rowid : null,
      limit,
    });
    return connectionOf(rows, limit, 'PromptVersion', promptVersionOf, from.kind === 'from');
  }

  @FieldResolver(() => Int)
  async versionCount(@Root() prompt: Prompt, @Ctx() ctx: GraphqlContext): Promise<number> {
    const latest = await latestPromptVersion(ctx.deps.pool, prompt.promptUuid);
    return latest === null ? 0 : ((await promptVersionPosition(ctx.deps.pool, latest.version_id))?.version_count ?? 0);
  }

  @FieldResolver(() => [PromptVersionTag], { description: 'Every tag of the prompt, by name' })
  async versionTags(@Root() prompt: Prompt, @Ctx() ctx: GraphqlContext): Promise<PromptVersionTag[]> {
    return (await listPromptTags(ctx.deps.pool, prompt.promptUuid)).map(promptTagOf);
  }

  @FieldResolver(() => [PromptLabel], { description: 'The labels this prompt carries, by name' })
  async labels(@Root() prompt: Prompt, @Ctx() ctx: GraphqlContext): Promise<PromptLabel[]> {
    return (await listPromptLabels(ctx.deps.pool, prompt.promptUuid)).map(promptLabelOf);
  }

  @FieldResolver(() => Prompt, { nullable: true, description: 'The prompt this one was cloned from, if it still exists' })
  async sourcePrompt(@Root() prompt: Prompt, @Ctx() ctx: GraphqlContext): Promise<Prompt | null> {
    if (prompt.sourcePromptId === null) return null;
    const row = await findPrompt(ctx.deps.pool, { id: rowidOf('Prompt', prompt.sourcePromptId, 'sourcePromptId') });
    return row === null ? null : promptOf(row);
  }
}

@Resolver(() => PromptVersion)
export class PromptVersionFieldResolver {
  @FieldResolver(() => [PromptVersionTag], { description: 'The tags pointing at this version, newest first' })
  async tags(@Root() version: PromptVersion, @Ctx() ctx: GraphqlContext): Promise<PromptVersionTag[]> {
    return (await listVersionTags(ctx.deps.pool, { versionId: version.versionId, cursor: null, limit: 10_000 })).map(promptTagOf);
  }

  @FieldResolver(() => Int, { description: '1-based, in the order the versions were added' })
  async sequenceNumber(@Root() version: PromptVersion, @Ctx() ctx: GraphqlContext): Promise<number> {
    return (await promptVersionPosition(ctx.deps.pool, version.versionId))?.sequence_number ?? 0;
  }

  @FieldResolver(() => Boolean)
  async isLatest(@Root() version: PromptVersion, @Ctx() ctx: GraphqlContext): Promise<boolean> {
    return (await latestPromptVersion(ctx.deps.pool, version.promptUuid))?.version_id === version.versionId;
  }

  @FieldResolver(() => PromptVersion, { nullable: true, description: 'The version added just before this one (for diffs)' })
  async previousVersion(@Root() version: PromptVersion, @Ctx() ctx: GraphqlContext): Promise<PromptVersion | null> {
    const rows = await listPromptVersions(ctx.deps.pool, { promptId: version.promptUuid, cursor: version.rowid, limit: 1 });
    const previous = rows[1];
    return previous === undefined ? null : promptVersionOf(previous);
  }
}

const labelById = async (ctx: GraphqlContext, raw: string, argument: string) => {
  const rowid = rowidOf('PromptLabel', raw, argument);
  const label = (await listPromptLabels(ctx.deps.pool)).find((l) => l.id === rowid);
  if (label === undefined)
    throw gqlError('prompt_label_not_found', `Argument "${argument}": no prompt label with id ${JSON.stringify(raw)}`, 404);
  return label;
};

const promptById = async (ctx: GraphqlContext, raw: string, argument: string) => {
  const row = await findPrompt(ctx.deps.pool, { id: rowidOf('Prompt', raw, argument) });
  if (row === null) throw gqlError('prompt_not_found', `Argument "${argument}": no prompt with id ${JSON.stringify(raw)}`, 404);
  return row;
};

/**
 * Prompt labels: the global vocabulary (create, patch, delete) and which prompts carry them (set
 * adds, unset takes off), with the reference's mutation names. The same domain commands as the
 * labels stream everywhere, waited for before answering.
 */
@Resolver(() => PromptLabel)
export class PromptLabelResolver {
  @FieldResolver(() => Int, { description: 'The number of prompts that carry this label' })
  async usageCount(@Root() label: PromptLabel, @Ctx() ctx: GraphqlContext): Promise<number> {
    return (await promptLabelUsage(ctx.deps.pool)).find((u) => u.label_id === label.rowid)?.prompts ?? 0;
  }

  @Mutation(() => PromptLabelMutationPayload)
  @Requires('write')
  async createPromptLabel(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => CreatePromptLabelInput) input: CreatePromptLabelInput,
  ): Promise<PromptLabelMutationPayload> {
    const result = await changePromptLabels(
      ctx.deps.store,
      {
        type: 'CreatePromptLabel',
        label: {
          name: noNul(input.name, 'input.name'),
          color: input.color,
          description: input.description == null ? null : noNul(input.description, 'input.description'),
        },
      },
      ctx.command,
    );
    await ctx.settle(result.position);
    const id = result.events.find((e) => isEventOf(e, ['PromptLabelCreated']))!.data.labelId;
    return { promptLabels: [await labelById(ctx, toGlobalId('PromptLabel', String(id)), 'input')].map(promptLabelOf) };
  }

  @Mutation(() => PromptLabelMutationPayload)
  @Requires('write')
  async patchPromptLabel(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => PatchPromptLabelInput) input: PatchPromptLabelInput,
  ): Promise<PromptLabelMutationPayload> {
    const label = await labelById(ctx, input.promptLabelId, 'input.promptLabelId');
    const result = await changePromptLabels(
      ctx.deps.store,
      {
        type: 'UpdatePromptLabel',
        labelId: label.id,
        label: {
          name: input.name == null ? label.name : noNul(input.name, 'input.name'),
          color: input.color == null ? label.color : input.color,
          description:
            input.description === undefined
              ? label.description
              : input.description === null
                ? null
                : noNul(input.description, 'input.description'),
        },
      },
      ctx.command,
    );
    await ctx.settle(result.position);
    return { promptLabels: [promptLabelOf(await labelById(ctx, input.promptLabelId, 'input.promptLabelId'))] };
  }

  @Mutation(() => PromptLabelDeleteMutationPayload, { description: 'Deletes labels and takes them off every prompt' })
  @Requires('write')
  async deletePromptLabels(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => DeletePromptLabelsInput) input: DeletePromptLabelsInput,
  ): Promise<PromptLabelDeleteMutationPayload> {
    // Every id is checked before anything is deleted: a bad one deletes none.
    const labels = [];
    for (const [i, id] of input.promptLabelIds.entries()) labels.push(await labelById(ctx, id, `input.promptLabelIds.${i}`));
    for (const label of labels) {
      const result = await changePromptLabels(ctx.deps.store, { type: 'DeletePromptLabel', labelId: label.id }, ctx.command);
      await ctx.settle(result.position);
    }
    return { deletedPromptLabelIds: labels.map((l) => toGlobalId('PromptLabel', String(l.id))) };
  }

  @Mutation(() => PromptLabelAssociationMutationPayload, { description: 'Adds labels to a prompt' })
  @Requires('write')
  async setPromptLabels(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => SetPromptLabelsInput) input: SetPromptLabelsInput,
  ): Promise<PromptLabelAssociationMutationPayload> {
    return relabel(ctx, input, (current, given) => [...new Set([...current, ...given])]);
  }

  @Mutation(() => PromptLabelAssociationMutationPayload, { description: 'Takes labels off a prompt' })
  @Requires('write')
  async unsetPromptLabels(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => UnsetPromptLabelsInput) input: UnsetPromptLabelsInput,
  ): Promise<PromptLabelAssociationMutationPayload> {
    return relabel(ctx, input, (current, given) => current.filter((id) => !given.includes(id)));
  }
}

/** The prompt's labels changed by `change` (current ids, given ids), as one SetPromptLabels. */
const relabel = async (
  ctx: GraphqlContext,
  input: { promptId: string; promptLabelIds: string[] },
  change: (current: number[], given: number[]) => number[],
): Promise<PromptLabelAssociationMutationPayload> => {
  const prompt = await promptById(ctx, input.promptId, 'input.promptId');
  const given: number[] = [];
  for (const [i, id] of input.promptLabelIds.entries()) given.push((await labelById(ctx, id, `input.promptLabelIds.${i}`)).id);
  const current = (await listPromptLabels(ctx.deps.pool, prompt.prompt_id)).map((l) => l.id);
  const next = change(current, given).sort((a, b) => a - b);
  if (JSON.stringify(next) !== JSON.stringify([...current].sort((a, b) => a - b))) {
    const result = await setPromptLabels(ctx.deps.store, { name: prompt.name, promptId: prompt.prompt_id }, next, ctx.command);
    await ctx.settle(result.position);
  }
  return { prompt: promptOf((await findPrompt(ctx.deps.pool, { id: prompt.id })) ?? prompt) };
};
