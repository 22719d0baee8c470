import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

@ObjectType({ description: 'One run of a trace retention policy: what it expired, and what the removals from the log took since' })
export class TraceRetentionRun {
  @Field(() => DateTimeScalar)
  ranAt!: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Traces that started before this expired (max days)' })
  startedBefore!: string | null;

  @Field(() => Int, { nullable: true, description: 'Each project kept its newest this many traces' })
  maxTraces!: number | null;

  @Field(() => Int, { description: 'Projects the run applied to' })
  projects!: number;

  @Field(() => Int, { description: 'Traces the run expired (deleted)' })
  expiredTraces!: number;

  @Field(() => Int, { description: 'Traces removed from the event log so far' })
  removedTraces!: number;

  @Field(() => Int, { description: 'Spans removed from the event log so far' })
  removedSpans!: number;

  @Field(() => Int, { description: 'Annotations and notes removed from the event log so far' })
  removedAnnotations!: number;
}

@ObjectType({
  implements: Node,
  description: 'A named trace retention policy: a trace expires by age (maxDays) or beyond the newest maxTraces',
})
export class ProjectTraceRetentionPolicy extends Node {
  rowid!: number;
  projectRowids!: readonly number[];

  @Field(() => String)
  name!: string;

  @Field(() => Float, { nullable: true })
  maxDays!: number | null;

  @Field(() => Int, { nullable: true })
  maxTraces!: number | null;

  @Field(() => TraceRetentionRun, { nullable: true })
  lastRun!: TraceRetentionRun | null;
}

export const ProjectTraceRetentionPolicyConnection = connectionType('ProjectTraceRetentionPolicy', () => ProjectTraceRetentionPolicy);

@ObjectType({ description: 'The policy of projects without a named one: SERVICE_DEFAULT_RETENTION_POLICY_DAYS (null: keep for ever)' })
export class DefaultTraceRetentionPolicy {
  @Field(() => Float, { nullable: true })
  maxDays!: number | null;

  @Field(() => TraceRetentionRun, { nullable: true })
  lastRun!: TraceRetentionRun | null;
}

@InputType()
export class CreateProjectTraceRetentionPolicyInput {
  @Field(() => String)
  name!: string;

  @Field(() => Float, { nullable: true })
  maxDays?: number | null;

  @Field(() => Int, { nullable: true })
  maxTraces?: number | null;

  @Field(() => [ID], { nullable: true, description: 'Projects that get this policy' })
  addProjects?: string[] | null;
}

@InputType()
export class PatchProjectTraceRetentionPolicyInput {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => Float, { nullable: true, description: 'Left out: unchanged; null: no age rule' })
  maxDays?: number | null;

  @Field(() => Int, { nullable: true, description: 'Left out: unchanged; null: no count rule' })
  maxTraces?: number | null;

  @Field(() => [ID], { nullable: true, description: 'Projects that get this policy' })
  addProjects?: string[] | null;

  @Field(() => [ID], { nullable: true, description: 'Projects that go back to the default policy' })
  removeProjects?: string[] | null;
}

@InputType()
export class DeleteProjectTraceRetentionPolicyInput {
  @Field(() => ID)
  id!: string;
}

@ObjectType()
export class ProjectTraceRetentionPolicyMutationPayload {
  @Field(() => ProjectTraceRetentionPolicy)
  node!: ProjectTraceRetentionPolicy;
}
