import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum FilterSubjectKind {
  span = 'span',
  trace = 'trace',
  session = 'session',
}
registerEnumType(FilterSubjectKind, { name: 'FilterSubject', description: 'What a filter condition is written about' });

@ObjectType({ description: 'Whether a filter condition can be read, and if not where and why' })
export class FilterConditionCheck {
  @Field(() => Boolean)
  valid!: boolean;
  @Field(() => Int, { nullable: true, description: 'Character offset (0-based) of the first problem' })
  position!: number | null;
  @Field(() => String, { nullable: true, description: 'What the parser expected there' })
  expected!: string | null;
  @Field(() => String, { nullable: true })
  message!: string | null;
}

@ObjectType({ description: "A named filter of a project's Traces, Spans or Sessions list" })
export class SavedFilter {
  @Field(() => ID)
  id!: string;
  @Field(() => String)
  name!: string;
  @Field(() => FilterSubjectKind)
  subject!: FilterSubjectKind;
  @Field(() => String, { description: 'The filter language text (empty when only a search is saved)' })
  condition!: string;
  @Field(() => String)
  search!: string;
}

@InputType()
export class SaveFilterInput {
  @Field(() => ID)
  projectId!: string;
  @Field(() => String)
  name!: string;
  @Field(() => FilterSubjectKind)
  subject!: FilterSubjectKind;
  @Field(() => String, { defaultValue: '' })
  condition!: string;
  @Field(() => String, { defaultValue: '' })
  search!: string;
}
