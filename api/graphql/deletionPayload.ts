import { Field, ID, ObjectType } from 'type-graphql';

/** The answer of every deletion mutation, whatever the feature. */
@ObjectType({ description: 'What a deletion removed, by global id (unknown ids are skipped, as REST does for sessions).' })
export class DeletionPayload {
  @Field(() => [ID])
  deletedIds!: string[];
}
