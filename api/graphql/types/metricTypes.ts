import { Field, Float, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../dateTimeScalar.ts';

@ObjectType({ description: 'One bucket of a project’s traces (by start time)' })
export class MetricPoint {
  @Field(() => DateTimeScalar, { description: 'Start of the bucket' })
  time!: string;

  @Field(() => Int)
  traceCount!: number;

  @Field(() => Int, { description: 'Traces with at least one span in status ERROR' })
  errorCount!: number;

  @Field(() => Float, { description: 'errorCount / traceCount' })
  errorRate!: number;

  @Field(() => Float, { nullable: true })
  latencyMsP50!: number | null;

  @Field(() => Float, { nullable: true })
  latencyMsP95!: number | null;

  @Field(() => Float, { nullable: true })
  latencyMsP99!: number | null;

  @Field(() => Float)
  tokenCountPrompt!: number;

  @Field(() => Float)
  tokenCountCompletion!: number;

  @Field(() => Float, { nullable: true, description: 'USD; null when nothing in the bucket is priced' })
  cost!: number | null;
}

@ObjectType()
export class ScorePoint {
  @Field(() => DateTimeScalar)
  time!: string;

  @Field(() => Float)
  mean!: number;

  @Field(() => Int)
  count!: number;
}

@ObjectType({ description: 'The mean score of one annotation name per bucket (spans and traces by their start time)' })
export class ScoreSeries {
  @Field(() => String)
  name!: string;

  @Field(() => [ScorePoint])
  points!: ScorePoint[];
}

@ObjectType({ description: 'A project’s series over a time range, in buckets that fit it' })
export class ProjectMetrics {
  @Field(() => String, { description: 'minute, hour or day' })
  bucket!: string;

  @Field(() => DateTimeScalar)
  start!: string;

  @Field(() => DateTimeScalar)
  end!: string;

  @Field(() => [MetricPoint], { description: 'Buckets with traces, oldest first' })
  points!: MetricPoint[];

  @Field(() => [ScoreSeries], { description: 'One per annotation name with a score, by name' })
  scores!: ScoreSeries[];
}
