import { GraphQLJSON } from 'graphql-scalars';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

/** The read side of datasets, with the reference's field names (a subset). */

export const RevisionKind = { CREATE: 'CREATE', PATCH: 'PATCH', DELETE: 'DELETE' } as const;
export type RevisionKind = (typeof RevisionKind)[keyof typeof RevisionKind];
registerEnumType(RevisionKind, { name: 'RevisionKind' });

@ObjectType({ implements: Node, description: 'A split: a name examples of any dataset can be in' })
export class DatasetSplit extends Node {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => GraphQLJSON)
  metadata!: unknown;

  @Field(() => String, { description: 'A colour like #33c5e8' })
  color!: string;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;
}

@ObjectType({ implements: Node, description: 'A label datasets carry (the vocabulary is shared by every dataset)' })
export class DatasetLabel extends Node {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String)
  color!: string;
}

@ObjectType({ implements: Node, description: 'One immutable version of a dataset: the examples it added, changed and deleted' })
export class DatasetVersion extends Node {
  rowid!: number;
  datasetUuid!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => GraphQLJSON)
  metadata!: unknown;

  @Field(() => DateTimeScalar)
  createdAt!: string;
}

@ObjectType({ description: 'An example’s content as of one version' })
export class DatasetExampleRevision {
  @Field(() => GraphQLJSON)
  input!: unknown;

  @Field(() => GraphQLJSON)
  output!: unknown;

  @Field(() => GraphQLJSON)
  metadata!: unknown;

  @Field(() => RevisionKind)
  revisionKind!: RevisionKind;

  @Field(() => DateTimeScalar)
  createdAt!: string;
}

@ObjectType({ implements: Node, description: 'An example of a dataset; its content is per version (revision)' })
export class DatasetExample extends Node {
  rowid!: number;
  exampleUuid!: string;
  datasetUuid!: string;
  /** The revision of the version the example was read at (null: read without one, e.g. by node(id:)). */
  readAt!: DatasetExampleRevision | null;

  @Field(() => String, { nullable: true })
  externalId!: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: string;
}

@ObjectType({ implements: Node, description: 'A dataset: named, versioned examples' })
export class Dataset extends Node {
  rowid!: number;
  datasetUuid!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => GraphQLJSON)
  metadata!: unknown;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;

  /** Examples alive at the latest version. */
  latestExampleCount!: number;
}

export const DatasetConnection = connectionType('Dataset', () => Dataset);
export const DatasetVersionConnection = connectionType('DatasetVersion', () => DatasetVersion);
export const DatasetExampleConnection = connectionType('DatasetExample', () => DatasetExample);
