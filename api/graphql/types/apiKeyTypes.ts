import { Field, InputType, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

@ObjectType({ implements: Node })
export class UserApiKey extends Node {
  ownerUserId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar, { nullable: true })
  expiresAt!: string | null;
}

@ObjectType({ implements: Node })
export class SystemApiKey extends Node {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar, { nullable: true })
  expiresAt!: string | null;
}

@InputType()
export class CreateApiKeyInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Must be in the future; never expires when left out' })
  expiresAt?: string | null;
}

@ObjectType({ description: 'The key value is in this answer only: show it once.' })
export class CreateUserApiKeyMutationPayload {
  @Field(() => String)
  key!: string;

  @Field(() => UserApiKey)
  apiKey!: UserApiKey;
}

@ObjectType({ description: 'The key value is in this answer only: show it once.' })
export class CreateSystemApiKeyMutationPayload {
  @Field(() => String)
  key!: string;

  @Field(() => SystemApiKey)
  apiKey!: SystemApiKey;
}
