import { randomUUID } from 'node:crypto';
import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { changeAlert } from '../../../domain/alerts/alertCommands.ts';
import { alertRuleFromJson, type AlertRuleLimits } from '../../../domain/alerts/alertRuleInput.ts';
import { sealDestinations, slackHost } from '../../../domain/alerts/sealDestinations.ts';
import { findAlertRule, listAlertRules, type AlertRow } from '../../../projections/alerts/alertQueries.ts';
import { findProjectById } from '../../../projections/projects/projectQueries.ts';
import { rowidOf } from '../../http/globalId.ts';
import { conditionJson } from '../../rest/alerts/alertJson.ts';
import { DeletionPayload } from '../deletionPayload.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { Requires } from '../requires.ts';
import { AlertRule } from '../types/alertTypes.ts';
import { Project } from '../types/tracingTypes.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const alertRuleOf = (row: AlertRow): AlertRule => ({
  id: row.alert_id,
  name: row.rule.name,
  metric: row.rule.metric,
  annotationName: row.rule.annotationName,
  filter: row.rule.filter,
  windowSeconds: row.rule.windowSeconds,
  evaluationIntervalSeconds: row.rule.evaluationIntervalSeconds,
  condition: JSON.stringify(conditionJson(row.rule.condition)),
  noData: row.rule.noData,
  destinations: row.rule.destinations.map((d) =>
    d.type === 'webhook'
      ? { type: d.type, host: new URL(d.url).host, url: d.url, urlSet: true, secretSet: true }
      : { type: d.type, host: slackHost(d), url: null, urlSet: true, secretSet: false },
  ),
  state: row.state,
  stateSince: iso(row.state_since)!,
  lastValue: row.value,
  lastEvaluatedAt: iso(row.evaluated_at),
});

const limitsOf = (ctx: GraphqlContext): AlertRuleLimits => ({
  defaultEvaluationIntervalSeconds: ctx.deps.alerts?.evaluationIntervalSeconds ?? 60,
  allowedUrls: ctx.deps.alerts?.allowedUrls ?? [],
});

const parsed = (ruleJson: string): unknown => {
  try {
    return JSON.parse(ruleJson);
  } catch {
    throw gqlError('invalid_alert_rule', 'Argument "rule": must be the rule as JSON, as POST /v1/projects/{id}/alerts takes it', 400);
  }
};

@Resolver(() => Project)
export class ProjectAlertResolver {
  @FieldResolver(() => [AlertRule], { description: "This project's alert rules, oldest first" })
  async alertRules(@Root() project: Project, @Ctx() ctx: GraphqlContext): Promise<AlertRule[]> {
    const row = await findProjectById(ctx.deps.pool, project.rowid);
    return row === null ? [] : (await listAlertRules(ctx.deps.pool, row.project_id)).map(alertRuleOf);
  }
}

/** Alert rules from GraphQL: the REST API's JSON rule (same checks, same sealing), writers only (`write`). */
@Resolver()
export class AlertRuleMutations {
  @Mutation(() => AlertRule)
  @Requires('write')
  async createAlertRule(
    @Ctx() ctx: GraphqlContext,
    @Arg('projectId', () => ID) projectId: string,
    @Arg('rule', () => String, { description: 'The rule as JSON, as POST /v1/projects/{id}/alerts takes it' }) rule: string,
  ): Promise<AlertRule> {
    const rowid = rowidOf('Project', projectId);
    const project = rowid === null ? null : await findProjectById(ctx.deps.pool, rowid);
    if (project === null) throw gqlError('project_not_found', `Argument "projectId": no project with id ${JSON.stringify(projectId)}`, 404);
    const alertId = randomUUID();
    const sealed = sealDestinations(ctx.deps.identity.keyring, alertId, alertRuleFromJson(parsed(rule), limitsOf(ctx)));
    const result = await changeAlert(
      ctx.deps.store,
      { type: 'CreateAlertRule', alertId, projectId: project.project_id, rule: sealed },
      ctx.command,
    );
    await ctx.settle(result.position);
    const row = await findAlertRule(ctx.deps.pool, alertId);
    if (row === null) throw gqlError('alert_not_found', 'The alert rule is not visible yet; retry', 503);
    return alertRuleOf(row);
  }

  @Mutation(() => AlertRule, {
    description: 'Changes a rule: the fields given replace the stored ones (as PATCH /v1/projects/{id}/alerts/{alert_id})',
  })
  @Requires('write')
  async patchAlertRule(
    @Ctx() ctx: GraphqlContext,
    @Arg('id', () => ID) id: string,
    @Arg('rule', () => String, { description: 'The fields to change as JSON, as PATCH /v1/projects/{id}/alerts/{alert_id} takes them' })
    rule: string,
  ): Promise<AlertRule> {
    const stored = await findAlertRule(ctx.deps.pool, id);
    if (stored === null) throw gqlError('alert_not_found', `Alert rule not found: ${JSON.stringify(id)}`, 404);
    const sealed = sealDestinations(
      ctx.deps.identity.keyring,
      id,
      alertRuleFromJson(parsed(rule), limitsOf(ctx), stored.rule),
      stored.rule,
    );
    const result = await changeAlert(ctx.deps.store, { type: 'ChangeAlertRule', alertId: id, rule: sealed }, ctx.command);
    await ctx.settle(result.position);
    const row = await findAlertRule(ctx.deps.pool, id);
    if (row === null) throw gqlError('alert_not_found', `Alert rule not found: ${JSON.stringify(id)}`, 404);
    return alertRuleOf(row);
  }

  @Mutation(() => DeletionPayload)
  @Requires('write')
  async deleteAlertRule(@Ctx() ctx: GraphqlContext, @Arg('id', () => ID) id: string): Promise<DeletionPayload> {
    const row = await findAlertRule(ctx.deps.pool, id);
    if (row === null) throw gqlError('alert_not_found', `Alert rule not found: ${JSON.stringify(id)}`, 404);
    const result = await changeAlert(ctx.deps.store, { type: 'DeleteAlertRule', alertId: id }, ctx.command);
    await ctx.settle(result.position);
    return { deletedIds: [id] };
  }
}
