import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

export const UserRole = { SYSTEM: 'SYSTEM', ADMIN: 'ADMIN', MEMBER: 'MEMBER', VIEWER: 'VIEWER' } as const;
export type UserRole = (typeof UserRole)[keyof typeof UserRole];
registerEnumType(UserRole, { name: 'UserRole' });

export const AuthMethod = { LOCAL: 'LOCAL', OAUTH2: 'OAUTH2', LDAP: 'LDAP' } as const;
export type AuthMethod = (typeof AuthMethod)[keyof typeof AuthMethod];
registerEnumType(AuthMethod, { name: 'AuthMethod' });

@ObjectType({ implements: Node })
export class User extends Node {
  userId!: string;

  @Field(() => String)
  username!: string;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => UserRole)
  role!: UserRole;

  @Field(() => AuthMethod)
  authMethod!: AuthMethod;

  @Field(() => Boolean, { description: 'A local user who must choose a new password before doing anything else' })
  passwordNeedsReset!: boolean;

  @Field(() => Boolean, { description: 'The built-in system user or default admin (cannot be deleted)' })
  isManagementUser!: boolean;

  @Field(() => DateTimeScalar)
  createdAt!: string;

  @Field(() => DateTimeScalar)
  updatedAt!: string;
}

export const UserConnection = connectionType('User', () => User);

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
