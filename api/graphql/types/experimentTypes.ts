import { GraphQLJSON } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';
import { Cost } from './tracingTypes.ts';

/** The read side of experiments, with the reference's field names (a subset). */

@ObjectType({ implements: Node, description: 'An application run over a dataset version, with repetitions' })
export class Experiment extends Node {
  experimentUuid!: string;
  datasetRowid!: number;
  versionRowid!: number;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String, { nullable: true, description: 'The project the task’s traces go to' })
  projectName!: string | null;

  @Field(() => Int)
  repetitions!: number;

  @Field(() => GraphQLJSON)
  metadata!: unknown;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;

  @Field(() => Int, { description: 'Runs recorded, successful or failed' })
  runCount!: number;

  @Field(() => Int, { description: 'Runs with an error' })
  errorRunCount!: number;

  @Field(() => Int, { description: 'Examples in scope times repetitions' })
  expectedRunCount!: number;

  @Field(() => Cost, { nullable: true, description: 'The sum of its runs’ trace costs; null while none of them is priced' })
  cost!: Cost | null;
}

export const ExperimentConnection = connectionType('Experiment', () => Experiment);
