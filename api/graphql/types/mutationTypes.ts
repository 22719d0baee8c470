import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { AuthMethod, SystemApiKey, User, UserApiKey, UserRole } from './identityTypes.ts';
import { Project } from './tracingTypes.ts';

@InputType()
export class CreateProjectInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true, description: 'A CSS colour; a palette colour is picked when left out' })
  gradientStartColor?: string | null;

  @Field(() => String, { nullable: true })
  gradientEndColor?: string | null;
}

@InputType({ description: 'Fields left out (or null) stay as they are.' })
export class PatchProjectInput {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true })
  gradientStartColor?: string | null;

  @Field(() => String, { nullable: true })
  gradientEndColor?: string | null;
}

@ObjectType()
export class ProjectMutationPayload {
  @Field(() => Project)
  project!: Project;
}

@ObjectType({ description: 'What a deletion removed, by global id (unknown ids are skipped, as REST does for sessions).' })
export class DeletionPayload {
  @Field(() => [ID])
  deletedIds!: string[];
}

@InputType()
export class CreateUserInput {
  @Field(() => String)
  email!: string;

  @Field(() => String)
  username!: string;

  @Field(() => UserRole, { description: 'ADMIN, MEMBER or VIEWER (SYSTEM is refused)' })
  role!: UserRole;

  @Field(() => AuthMethod, { defaultValue: 'LOCAL' })
  authMethod!: AuthMethod;

  @Field(() => String, { nullable: true, description: 'LOCAL users only; they must change it at first login' })
  password?: string | null;

  @Field(() => Boolean, { defaultValue: false })
  sendWelcomeEmail!: boolean;
}

@InputType({ description: "An admin changes another user's role, username or password (fields left out stay)." })
export class PatchUserInput {
  @Field(() => ID)
  userId!: string;

  @Field(() => String, { nullable: true })
  username?: string | null;

  @Field(() => UserRole, { nullable: true })
  role?: UserRole | null;

  @Field(() => String, { nullable: true })
  newPassword?: string | null;
}

@InputType({ description: 'One’s own username and/or password; a new password needs the current one and ends every session.' })
export class PatchViewerInput {
  @Field(() => String, { nullable: true })
  username?: string | null;

  @Field(() => String, { nullable: true })
  currentPassword?: string | null;

  @Field(() => String, { nullable: true })
  newPassword?: string | null;
}

@ObjectType()
export class UserMutationPayload {
  @Field(() => User)
  user!: User;
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
