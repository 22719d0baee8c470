import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

export const AnnotatorKind = { HUMAN: 'HUMAN', LLM: 'LLM', CODE: 'CODE' } as const;
export type AnnotatorKind = (typeof AnnotatorKind)[keyof typeof AnnotatorKind];
registerEnumType(AnnotatorKind, { name: 'AnnotatorKind' });

export const AnnotationTarget = { span: 'span', document: 'document', trace: 'trace', session: 'session' } as const;
export type AnnotationTarget = (typeof AnnotationTarget)[keyof typeof AnnotationTarget];
registerEnumType(AnnotationTarget, {
  name: 'AnnotationTarget',
  description: 'A span, one retrieved document of a span, a trace or a session',
});

export const AnnotationSource = { API: 'API', APP: 'APP' } as const;
export type AnnotationSource = (typeof AnnotationSource)[keyof typeof AnnotationSource];
registerEnumType(AnnotationSource, { name: 'AnnotationSource' });

@ObjectType({ implements: Node, description: 'A judgement (or, named "note", a note) on a span, document, trace or session' })
export class Annotation extends Node {
  @Field(() => AnnotationTarget)
  target!: AnnotationTarget;

  @Field(() => ID, { description: 'The OpenTelemetry span or trace id, or the session id' })
  targetId!: string;

  @Field(() => Int, { nullable: true, description: 'Documents only: 0-based' })
  documentPosition!: number | null;

  @Field(() => String)
  name!: string;

  @Field(() => AnnotatorKind)
  annotatorKind!: AnnotatorKind;

  @Field(() => String, { nullable: true })
  label!: string | null;

  @Field(() => Float, { nullable: true })
  score!: number | null;

  @Field(() => String, { nullable: true })
  explanation!: string | null;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => String)
  identifier!: string;

  @Field(() => AnnotationSource)
  source!: AnnotationSource;

  @Field(() => ID, {
    nullable: true,
    description: 'The author: a User global id (an API key counts as its owner); null when nobody in particular',
  })
  userId!: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;
}

@ObjectType()
export class LabelCount {
  @Field(() => String)
  label!: string;

  @Field(() => Int)
  count!: number;
}

@ObjectType({ description: 'One annotation name over a project: how many, the mean score, the labels given (notes left out)' })
export class AnnotationSummary {
  @Field(() => String)
  name!: string;

  @Field(() => Int)
  count!: number;

  @Field(() => Float, { nullable: true })
  meanScore!: number | null;

  @Field(() => [LabelCount], { description: 'Most frequent first' })
  labels!: LabelCount[];
}

@ObjectType()
export class CategoricalValue {
  @Field(() => String)
  label!: string;

  @Field(() => Float, { nullable: true })
  score!: number | null;
}

@ObjectType({ implements: Node, description: 'What may be answered for an annotation name: labels, a score range, or free text' })
export class AnnotationConfig extends Node {
  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'CATEGORICAL, CONTINUOUS or FREEFORM' })
  type!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { nullable: true, description: 'MINIMIZE, MAXIMIZE or NONE' })
  optimizationDirection!: string | null;

  @Field(() => [CategoricalValue], { nullable: true, description: 'Categorical only' })
  values!: CategoricalValue[] | null;

  @Field(() => Float, { nullable: true })
  lowerBound!: number | null;

  @Field(() => Float, { nullable: true })
  upperBound!: number | null;

  @Field(() => Float, { nullable: true })
  threshold!: number | null;
}

@InputType({ description: 'An annotation to record; the same (target, name, identifier) replaces the earlier one' })
export class AnnotationInput {
  @Field(() => AnnotationTarget)
  target!: AnnotationTarget;

  @Field(() => ID)
  targetId!: string;

  @Field(() => Int, { nullable: true })
  documentPosition?: number | null;

  @Field(() => String)
  name!: string;

  @Field(() => AnnotatorKind, { defaultValue: 'HUMAN' })
  annotatorKind!: AnnotatorKind;

  @Field(() => String, { nullable: true })
  label?: string | null;

  @Field(() => Float, { nullable: true })
  score?: number | null;

  @Field(() => String, { nullable: true })
  explanation?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  metadata?: Record<string, unknown> | null;

  @Field(() => String, { defaultValue: '' })
  identifier!: string;
}

@InputType({ description: 'A change to one annotation: only the fields given change' })
export class AnnotationPatch {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { nullable: true })
  label?: string | null;

  @Field(() => Float, { nullable: true })
  score?: number | null;

  @Field(() => String, { nullable: true })
  explanation?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  metadata?: Record<string, unknown> | null;
}

@InputType({ description: 'Rows carrying an annotation of this name; optionally one of these labels and a score in [minScore, maxScore]' })
export class AnnotationFilter {
  @Field(() => String)
  name!: string;

  @Field(() => [String], { nullable: true })
  labels?: string[] | null;

  @Field(() => Float, { nullable: true })
  minScore?: number | null;

  @Field(() => Float, { nullable: true })
  maxScore?: number | null;
}

@InputType()
export class CategoricalValueInput {
  @Field(() => String)
  label!: string;

  @Field(() => Float, { nullable: true })
  score?: number | null;
}

@InputType({
  description: 'A config as REST takes it: `values` for CATEGORICAL, bounds for CONTINUOUS and FREEFORM, `threshold` for FREEFORM',
})
export class AnnotationConfigInput {
  @Field(() => String, { description: 'CATEGORICAL, CONTINUOUS or FREEFORM' })
  type!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true, description: 'MINIMIZE, MAXIMIZE or NONE (required unless FREEFORM)' })
  optimizationDirection?: string | null;

  @Field(() => [CategoricalValueInput], { nullable: true })
  values?: CategoricalValueInput[] | null;

  @Field(() => Float, { nullable: true })
  lowerBound?: number | null;

  @Field(() => Float, { nullable: true })
  upperBound?: number | null;

  @Field(() => Float, { nullable: true })
  threshold?: number | null;
}
