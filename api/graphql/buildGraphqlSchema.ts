import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { guardRootFields } from './requires.ts';
import { AnnotationAuthorResolver } from './resolvers/annotationAuthorResolver.ts';
import { AnnotationConfigMutations } from './resolvers/annotationConfigMutations.ts';
import { AnnotationMutations } from './resolvers/annotationMutations.ts';
import {
  AnnotationQueryResolver,
  ProjectAnnotationResolver,
  SessionAnnotationResolver,
  SpanAnnotationResolver,
  TraceAnnotationResolver,
} from './resolvers/annotationResolvers.ts';
import { ApiKeyMutations } from './resolvers/apiKeyMutations.ts';
import { ApiKeyQueryResolver, UserApiKeyResolver } from './resolvers/apiKeyResolvers.ts';
import { DatasetExampleFieldResolver, DatasetFieldResolver, DatasetQueryResolver } from './resolvers/datasetResolvers.ts';
import { EvaluatorQueryResolver, ProjectEvaluatorResolver, ProjectEvaluatorsResolver } from './resolvers/evaluatorResolvers.ts';
import { DatasetExperimentsResolver, ExperimentFieldResolver } from './resolvers/experimentResolvers.ts';
import { AuditQueryResolver } from './resolvers/auditResolver.ts';
import { FilterQueryResolver, ProjectFilterResolver } from './resolvers/filterResolver.ts';
import { AlertRuleMutations, ProjectAlertResolver } from './resolvers/alertResolver.ts';
import { ProjectSavedFilterResolver, SavedFilterMutations } from './resolvers/savedFilterResolver.ts';
import { IdentityQueryResolver } from './resolvers/identityQueryResolver.ts';
import { ProjectMutations } from './resolvers/projectMutations.ts';
import { ProjectMetricsResolver } from './resolvers/metricResolvers.ts';
import { PriceResolver, ProjectPriceResolver, SessionPriceResolver, TracePriceResolver } from './resolvers/priceResolvers.ts';
import { ProjectResolver } from './resolvers/projectResolver.ts';
import { PromptFieldResolver, PromptLabelResolver, PromptQueryResolver, PromptVersionFieldResolver } from './resolvers/promptResolvers.ts';
import { ProjectRetentionResolver, RetentionQueryResolver, TraceRetentionPolicyResolver } from './resolvers/retentionResolvers.ts';
import { RetentionMutations } from './resolvers/retentionMutations.ts';
import { SecretMutations } from './resolvers/secretMutations.ts';
import { SecretQueryResolver, SecretResolver } from './resolvers/secretResolvers.ts';
import { SessionResolver, SessionTurnResolver } from './resolvers/sessionResolver.ts';
import { SpanResolver } from './resolvers/spanResolver.ts';
import { TelemetryMutations } from './resolvers/telemetryMutations.ts';
import { TraceResolver } from './resolvers/traceResolver.ts';
import { TracingQueryResolver } from './resolvers/tracingQueryResolver.ts';
import { UserMutations } from './resolvers/userMutations.ts';
import { SystemApiKey, UserApiKey } from './types/apiKeyTypes.ts';
import { BuiltInEvaluator, CodeEvaluator, LLMEvaluator } from './types/evaluatorTypes.ts';
import { User } from './types/identityTypes.ts';
import { Secret } from './types/secretTypes.ts';
import { Project, ProjectSession, Span, Trace } from './types/tracingTypes.ts';

/** Every resolver class; a feature adds its own here (one line). */
export const RESOLVERS = [
  EvaluatorQueryResolver,
  ProjectEvaluatorResolver,
  ProjectEvaluatorsResolver,
  TracingQueryResolver,
  ProjectResolver,
  FilterQueryResolver,
  ProjectFilterResolver,
  ProjectSavedFilterResolver,
  SavedFilterMutations,
  ProjectAlertResolver,
  AlertRuleMutations,
  TraceResolver,
  SpanResolver,
  SessionResolver,
  SessionTurnResolver,
  IdentityQueryResolver,
  ApiKeyQueryResolver,
  UserApiKeyResolver,
  SecretQueryResolver,
  SecretResolver,
  ProjectMutations,
  TelemetryMutations,
  UserMutations,
  ApiKeyMutations,
  SecretMutations,
  RetentionQueryResolver,
  TraceRetentionPolicyResolver,
  ProjectRetentionResolver,
  RetentionMutations,
  SpanAnnotationResolver,
  TraceAnnotationResolver,
  SessionAnnotationResolver,
  ProjectAnnotationResolver,
  AnnotationQueryResolver,
  AnnotationMutations,
  AnnotationConfigMutations,
  AnnotationAuthorResolver,
  PromptQueryResolver,
  PromptLabelResolver,
  PromptFieldResolver,
  PromptVersionFieldResolver,
  DatasetQueryResolver,
  DatasetFieldResolver,
  DatasetExampleFieldResolver,
  DatasetExperimentsResolver,
  ExperimentFieldResolver,
  PriceResolver,
  ProjectPriceResolver,
  TracePriceResolver,
  SessionPriceResolver,
  ProjectMetricsResolver,
  AuditQueryResolver,
] as const;

let built: GraphQLSchema | null = null;

/**
 * The schema, built once per process (type-graphql keeps its metadata in a global store, and the
 * schema is pure: no dependencies are bound in it; they come with each request's context).
 */
export const graphqlSchema = (): GraphQLSchema => {
  built ??= guardRootFields(
    buildSchemaSync({
      resolvers: [...RESOLVERS],
      // Node types reached only through node(id:) must still be in the schema.
      orphanedTypes: [
        Project,
        Trace,
        Span,
        ProjectSession,
        User,
        UserApiKey,
        SystemApiKey,
        Secret,
        LLMEvaluator,
        CodeEvaluator,
        BuiltInEvaluator,
      ],
      validate: false,
    }),
  );
  return built;
};

/** The SDL checked in at api/graphql/schema.graphql (sorted, so it diffs well). */
export const schemaSdl = (): string => `${printSchema(lexicographicSortSchema(graphqlSchema()))}\n`;
