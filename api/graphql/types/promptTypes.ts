import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

@ObjectType({ implements: Node, description: 'A label prompts carry (many prompts, many labels)' })
export class PromptLabel extends Node {
  rowid!: number;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { nullable: true, description: 'A colour like #1c76fc' })
  color!: string | null;
}

@ObjectType({ implements: Node, description: 'A name for one version of a prompt, unique within the prompt' })
export class PromptVersionTag extends Node {
  @Field(() => ID)
  promptVersionId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;
}

@ObjectType({ implements: Node, description: 'One immutable version of a prompt: the template and how to call the model' })
export class PromptVersion extends Node {
  rowid!: number;
  /** The version's uuid in the event log. */
  versionId!: string;
  /** The prompt incarnation's uuid. */
  promptUuid!: string;

  @Field(() => ID)
  promptId!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { description: 'CHAT or STR' })
  templateType!: string;

  @Field(() => String, { description: 'MUSTACHE, F_STRING or NONE' })
  templateFormat!: string;

  @Field(() => GraphQLJSON, {
    description: 'As REST answers it: {"type": "chat", "messages": [...]} or {"type": "string", "template": "..."}',
  })
  template!: unknown;

  @Field(() => [String], { description: 'The template variables, in order of first use ([] for format NONE)' })
  templateVariables!: string[];

  @Field(() => GraphQLJSON, { description: 'As REST answers it: {"type": "<provider>", "<provider>": {...}}' })
  invocationParameters!: unknown;

  @Field(() => GraphQLJSON, { nullable: true })
  tools!: unknown;

  @Field(() => GraphQLJSON, { nullable: true })
  responseFormat!: unknown;

  @Field(() => String)
  modelName!: string;

  @Field(() => String, { description: 'OPENAI, ANTHROPIC, …' })
  modelProvider!: string;

  @Field(() => DateTimeScalar)
  createdAt!: string;
}

@ObjectType({ implements: Node, description: 'A prompt: named, versioned, tagged and labelled' })
export class Prompt extends Node {
  rowid!: number;
  /** The incarnation's uuid in the event log. */
  promptUuid!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => ID, { nullable: true })
  sourcePromptId!: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar, { description: 'When a version was last added or the prompt last changed' })
  updatedAt!: string;
}

export const PromptConnection = connectionType('Prompt', () => Prompt);
export const PromptVersionConnection = connectionType('PromptVersion', () => PromptVersion);

@InputType()
export class CreatePromptLabelInput {
  @Field(() => String, { description: 'Lower-case letters, digits, hyphens and underscores, as prompt names' })
  name!: string;

  @Field(() => String, { nullable: true, defaultValue: null })
  description!: string | null;

  @Field(() => String, { description: 'A colour like #1c76fc' })
  color!: string;
}

@InputType({ description: 'Only the fields given change (description: null clears it)' })
export class PatchPromptLabelInput {
  @Field(() => ID)
  promptLabelId!: string;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true, description: 'A colour like #1c76fc' })
  color?: string | null;
}

@InputType()
export class DeletePromptLabelsInput {
  @Field(() => [ID])
  promptLabelIds!: string[];
}

@InputType({ description: 'Labels to add to a prompt; the others it carries stay' })
export class SetPromptLabelsInput {
  @Field(() => ID)
  promptId!: string;

  @Field(() => [ID])
  promptLabelIds!: string[];
}

@InputType({ description: 'Labels to take off a prompt; the others it carries stay' })
export class UnsetPromptLabelsInput {
  @Field(() => ID)
  promptId!: string;

  @Field(() => [ID])
  promptLabelIds!: string[];
}

@ObjectType()
export class PromptLabelMutationPayload {
  @Field(() => [PromptLabel])
  promptLabels!: PromptLabel[];
}

@ObjectType()
export class PromptLabelDeleteMutationPayload {
  @Field(() => [ID])
  deletedPromptLabelIds!: string[];
}

@ObjectType()
export class PromptLabelAssociationMutationPayload {
  @Field(() => Prompt, { description: 'The prompt with the labels it carries now' })
  prompt!: Prompt;
}
