import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../dateTimeScalar.ts';

@ObjectType({ description: "An alert rule of a project, with its state and last evaluation (a webhook's secret is never shown)" })
export class AlertRule {
  @Field(() => ID)
  id!: string;
  @Field(() => String)
  name!: string;
  @Field(() => String, { description: 'error_rate, latency_p50|p95|p99, trace_count, cost, tokens or annotation_score' })
  metric!: string;
  @Field(() => String, { nullable: true })
  annotationName!: string | null;
  @Field(() => String)
  filter!: string;
  @Field(() => Int)
  windowSeconds!: number;
  @Field(() => Int)
  evaluationIntervalSeconds!: number;
  @Field(() => String, {
    description:
      'The condition as the REST API writes it, in JSON ({op, threshold} or {baseline_window_seconds, change_percent, direction})',
  })
  condition!: string;
  @Field(() => String, { description: 'OK, KEEP or ALERT' })
  noData!: string;
  @Field(() => [String], { description: 'Each destination as type and URL' })
  destinations!: string[];
  @Field(() => String, { description: 'OK, FIRING or NO_DATA' })
  state!: string;
  @Field(() => DateTimeScalar)
  stateSince!: string;
  @Field(() => Float, { nullable: true })
  lastValue!: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lastEvaluatedAt!: string | null;
}
