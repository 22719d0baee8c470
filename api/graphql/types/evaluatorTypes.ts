import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, Int, InterfaceType, ObjectType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

/** The reference's names: an evaluator is an LLMEvaluator, a CodeEvaluator or a BuiltInEvaluator. */
@InterfaceType('Evaluator', { implements: Node, description: 'Something that judges a span, trace, session or experiment run' })
export class Evaluator extends Node {
  rowid!: number;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { description: 'LLM, CODE or BUILTIN' })
  kind!: string;

  @Field(() => Int, { description: 'Each change of the definition is a new version; an evaluation is judged once per version' })
  version!: number;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;
}

@ObjectType({ implements: [Node, Evaluator], description: 'An LLM as a judge: its answer is one of the choices, each mapped to a score' })
export class LLMEvaluator extends Evaluator {
  @Field(() => String)
  provider!: string;

  @Field(() => String)
  modelName!: string;

  @Field(() => GraphQLJSONObject)
  invocationParameters!: Record<string, unknown>;

  @Field(() => GraphQLJSON, { nullable: true, description: 'Chat messages, [{role, content}], as the playground takes them' })
  template!: unknown;

  @Field(() => String, { nullable: true })
  promptVersionId!: string | null;

  @Field(() => String)
  templateFormat!: string;

  @Field(() => GraphQLJSONObject, { description: '{choices: {label: score}, optimizationDirection}' })
  outputConfig!: Record<string, unknown>;
}

@ObjectType({ implements: [Node, Evaluator], description: 'JavaScript exporting evaluate(...), run in a sandbox' })
export class CodeEvaluator extends Evaluator {
  @Field(() => String)
  language!: string;

  @Field(() => String)
  sourceCode!: string;
}

@ObjectType({ implements: [Node, Evaluator], description: 'contains, regex, exact_match, json_parseable or levenshtein_distance' })
export class BuiltInEvaluator extends Evaluator {
  @Field(() => String)
  builtIn!: string;

  @Field(() => GraphQLJSONObject)
  parameters!: Record<string, unknown>;
}

export const EvaluatorConnection = connectionType('Evaluator', () => Evaluator);

@ObjectType({ description: 'Where an evaluator takes its arguments from: paths into what it judges, and fixed values' })
export class EvaluatorInputMapping {
  @Field(() => GraphQLJSONObject, { description: 'argument name → path (attributes.input.value, output.answer, ...)' })
  pathMapping!: Record<string, string>;

  @Field(() => GraphQLJSONObject, { description: 'argument name → value' })
  literalMapping!: Record<string, unknown>;
}

@ObjectType({ implements: Node, description: "An evaluator judging a project's live spans, traces or sessions" })
export class ProjectEvaluator extends Node {
  evaluatorRowid!: number;

  @Field(() => String, { description: 'SPAN, TRACE or SESSION' })
  target!: string;

  @Field(() => Float)
  samplingRate!: number;

  @Field(() => String)
  filter!: string;

  @Field(() => EvaluatorInputMapping)
  inputMapping!: EvaluatorInputMapping;

  @Field(() => String, { nullable: true })
  annotationName!: string | null;

  @Field(() => Int)
  delaySeconds!: number;

  @Field(() => Boolean)
  enabled!: boolean;
}
