import { Field, InputType, ObjectType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

@ObjectType({ implements: Node, description: 'A secret; its value is decrypted only when asked for, and only admins can ask.' })
export class Secret extends Node {
  ownerUserId!: string | null;

  @Field(() => String)
  key!: string;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;
}

export const SecretConnection = connectionType('Secret', () => Secret);

@InputType()
export class SecretEntryInput {
  @Field(() => String)
  key!: string;

  @Field(() => String, { nullable: true, description: 'null deletes the key' })
  value?: string | null;
}

@ObjectType()
export class UpsertOrDeleteSecretsMutationPayload {
  @Field(() => [String])
  upsertedKeys!: string[];

  @Field(() => [String])
  deletedKeys!: string[];
}
