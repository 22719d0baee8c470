import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../dateTimeScalar.ts';

@ObjectType({ description: "Where an alert rule's notifications go; a credential (a webhook's secret, a Slack URL) is never shown" })
export class AlertDestination {
  @Field(() => String, { description: 'webhook or slack' })
  type!: string;
  @Field(() => String, { description: 'The host notifications are posted to (hooks.slack.com for Slack)' })
  host!: string;
  @Field(() => String, {
    nullable: true,
    description: "A webhook's URL; null for Slack, whose URL is its credential (only its host is shown)",
  })
  url!: string | null;
  @Field(() => Boolean, { description: 'A URL is stored (for Slack it is not shown)' })
  urlSet!: boolean;
  @Field(() => Boolean, { description: "A webhook's signing secret is stored (never shown); false for Slack" })
  secretSet!: boolean;
}

@ObjectType({
  description: "An alert rule of a project, with its state and last evaluation (a webhook's secret and a Slack URL are never shown)",
})
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
  @Field(() => [AlertDestination])
  destinations!: AlertDestination[];
  @Field(() => String, { description: 'OK, FIRING or NO_DATA' })
  state!: string;
  @Field(() => DateTimeScalar)
  stateSince!: string;
  @Field(() => Float, { nullable: true })
  lastValue!: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lastEvaluatedAt!: string | null;
}
