import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';

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
