import { Field, ObjectType, registerEnumType } from 'type-graphql';
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

export const UserConnection = connectionType('User', () => User);
export const SecretConnection = connectionType('Secret', () => Secret);
