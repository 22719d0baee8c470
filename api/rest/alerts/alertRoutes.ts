import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { changeAlert } from '../../../domain/alerts/alertCommands.ts';
import { ALERTS_PER_PROJECT } from '../../../domain/alerts/alertRule.ts';
import { alertRuleFromJson, type AlertRuleLimits } from '../../../domain/alerts/alertRuleInput.ts';
import type { AlertCommand } from '../../../domain/alerts/commands.ts';
import { sealDestinations } from '../../../domain/alerts/sealDestinations.ts';
import {
  alertDeliveries,
  alertTransitions,
  countAlertRules,
  findAlertRule,
  listAlertRules,
} from '../../../projections/alerts/alertQueries.ts';
import type { ProjectRow } from '../../../projections/projects/projectQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { HttpError } from '../../http/httpError.ts';
import { refusedAt } from '../../http/httpErrorOf.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { alertDeliveryJson, alertHistorySchema, alertJson, alertSchema, alertTransitionJson } from './alertJson.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, pageOf } from '../../http/responseSchemas.ts';

/** A rule of the project named in the path, or 404 (a rule of another project is not found there either). */
const resolveAlert = async (deps: AppDeps, project: ProjectRow, alertId: string) => {
  const row = await findAlertRule(deps.pool, alertId);
  if (row === null || row.project_id !== project.project_id) throw new HttpError(404, 'alert_not_found', `Alert rule ${alertId} not found`);
  return row;
};

const historyQuery = z.object({ limit: z.coerce.number().int().positive().max(1000).default(100) });

/**
 * A project's alert rules (issue 37): members and admins create, change and delete them, every
 * role reads them (the method's default permissions). A rule break is a 422 naming the field
 * (`body.window_seconds: must be at least 10`); webhook secrets are sealed before the event is
 * built and never shown again.
 */
export const alertRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  const limits: AlertRuleLimits = {
    defaultEvaluationIntervalSeconds: deps.alerts?.evaluationIntervalSeconds ?? 60,
    allowedUrls: deps.alerts?.allowedUrls ?? [],
  };
  const change = async (context: CommandContext, command: AlertCommand) => {
    try {
      return await changeAlert(deps.store, command, context);
    } catch (error) {
      throw refusedAt('body.', error);
    }
  };
  const checked = <T>(rule: () => T): T => {
    try {
      return rule();
    } catch (error) {
      throw refusedAt('body.', error);
    }
  };
  const after = async (project: ProjectRow, alertId: string) => ({
    data: alertJson(await resolveAlert(deps, project, alertId), project.id),
  });

  return [
    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/alerts',
      responses: { 200: pageOf(alertSchema) },
      handler: async ({ requireProject, params }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        return { data: (await listAlertRules(deps.pool, project.project_id)).map((r) => alertJson(r, project.id)), next_cursor: null };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/projects/:project_identifier/alerts',
      body: 'json',
      responses: { 201: dataOf(alertSchema) },
      handler: async ({ requireProject, params, body, command, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const alertId = randomUUID();
        const rule = checked(() => sealDestinations(deps.identity.keyring, alertId, alertRuleFromJson(body, limits)));
        if ((await countAlertRules(deps.pool, project.project_id)) >= ALERTS_PER_PROJECT)
          throw new HttpError(409, 'too_many_alerts', `a project keeps at most ${ALERTS_PER_PROJECT} alert rules`);
        await command(() => change(context, { type: 'CreateAlertRule', alertId, projectId: project.project_id, rule }));
        return after(project, alertId);
      },
    }),
    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/alerts/:alert_id',
      responses: { 200: dataOf(alertSchema) },
      handler: async ({ requireProject, params }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        return { data: alertJson(await resolveAlert(deps, project, params.alert_id!), project.id) };
      },
    }),
    route({
      method: 'PATCH',
      path: '/v1/projects/:project_identifier/alerts/:alert_id',
      body: 'json',
      responses: { 200: dataOf(alertSchema) },
      handler: async ({ requireProject, params, body, command, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const stored = await resolveAlert(deps, project, params.alert_id!);
        const rule = checked(() =>
          sealDestinations(deps.identity.keyring, stored.alert_id, alertRuleFromJson(body, limits, stored.rule), stored.rule),
        );
        await command(() => change(context, { type: 'ChangeAlertRule', alertId: stored.alert_id, rule }));
        return after(project, stored.alert_id);
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/projects/:project_identifier/alerts/:alert_id',
      responses: { 204: NO_CONTENT },
      handler: async ({ requireProject, params, command, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const stored = await resolveAlert(deps, project, params.alert_id!);
        await command(() => change(context, { type: 'DeleteAlertRule', alertId: stored.alert_id }));
      },
    }),
    route({
      /** The rule's transitions (newest first) and its notifications with every attempt. */
      method: 'GET',
      path: '/v1/projects/:project_identifier/alerts/:alert_id/history',
      query: historyQuery,
      responses: { 200: dataOf(alertHistorySchema) },
      handler: async ({ requireProject, params, query }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const stored = await resolveAlert(deps, project, params.alert_id!);
        return {
          data: {
            transitions: (await alertTransitions(deps.pool, stored.alert_id, query.limit)).map(alertTransitionJson),
            deliveries: (await alertDeliveries(deps.pool, stored.alert_id, query.limit)).map(alertDeliveryJson),
          },
        };
      },
    }),
  ];
};
