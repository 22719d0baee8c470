import { Field, ObjectType, type ClassType } from 'type-graphql';
import { PageInfo } from './relay.ts';

/** `<Name>Connection { edges: [<Name>Edge!]!, pageInfo: PageInfo! }` for a node type. */
export const connectionType = <T extends object>(name: string, node: () => ClassType<T>) => {
  @ObjectType(`${name}Edge`)
  class EdgeType {
    @Field(() => String)
    cursor!: string;

    @Field(node)
    node!: T;
  }

  @ObjectType(`${name}Connection`)
  class ConnectionType {
    @Field(() => [EdgeType])
    edges!: EdgeType[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;
  }
  return ConnectionType;
};
