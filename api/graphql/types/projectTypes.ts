import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { Project } from './tracingTypes.ts';

/** The write side of projects (the Project type is tracing's: its rows are written with the spans). */

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

  @Field(() => Boolean, { nullable: true, description: 'Restrict the project to admins, system keys and its grantees (admins only)' })
  restricted?: boolean | null;
}

@InputType()
export class SetProjectGrantInput {
  @Field(() => ID)
  projectId!: string;

  @Field(() => ID, { description: 'A User global id' })
  userId!: string;

  @Field(() => String, { description: 'VIEWER, ANNOTATOR or MEMBER' })
  role!: string;
}

@ObjectType()
export class ProjectMutationPayload {
  @Field(() => Project)
  project!: Project;
}
