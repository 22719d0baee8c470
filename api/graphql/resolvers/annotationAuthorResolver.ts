import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { fromGlobalId } from '../../http/globalId.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { Annotation } from '../types/annotationTypes.ts';

/**
 * The author's username beside the opaque `userId`: the annotation panels show who judged, and
 * viewers may not list users. Batched through the request's user loader (one query per page).
 */
@Resolver(() => Annotation)
export class AnnotationAuthorResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description: 'The author’s username (an API key counts as its owner); null when nobody in particular or the user is gone',
  })
  async authorName(@Root() annotation: Annotation, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    const userId = annotation.userId === null ? null : fromGlobalId('User', annotation.userId);
    if (userId === null) return null;
    return (await ctx.loaders.user.load(userId))?.username ?? null;
  }
}
