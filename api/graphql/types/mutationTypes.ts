import { Field, InputType, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { SystemApiKey, UserApiKey } from './identityTypes.ts';

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
