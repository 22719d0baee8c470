import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';

/** Who did it: a user, an API key, the system, a retention policy, the operator (CLI). */
@ObjectType()
export class AuditActor {
  @Field(() => String, { description: 'As the event records it: user:<id>, apikey:<id>, system, retention:<policy>, operator' })
  actor!: string;

  @Field(() => String, { description: 'user, api_key, system, policy, operator or anonymous' })
  kind!: string;

  @Field(() => String, { nullable: true, description: 'A username, an API key’s name; null when unknown' })
  name!: string | null;

  @Field(() => ID, { nullable: true, description: 'The user’s GlobalID when the actor is a user' })
  userId!: string | null;
}

@ObjectType()
export class AuditResource {
  @Field(() => String, { nullable: true })
  type!: string | null;

  @Field(() => ID, {
    nullable: true,
    description: 'Its GlobalID while it exists (users, keys, secrets, projects, prompts, datasets, experiments)',
  })
  id!: string | null;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => String, { nullable: true, description: 'The event stream (null for summed span ingestion)' })
  stream!: string | null;

  @Field(() => String, { nullable: true, description: 'Where the UI shows it (a path inside the app)' })
  link!: string | null;
}

@ObjectType()
export class AuditChange {
  @Field(() => String)
  field!: string;

  @Field(() => String, { nullable: true })
  before!: string | null;

  @Field(() => String, { nullable: true })
  after!: string | null;
}

/** Span ingestion summed over one hour for one project and actor. */
@ObjectType()
export class AuditIngestion {
  @Field(() => DateTimeScalar)
  hourStart!: string;

  @Field(() => DateTimeScalar)
  hourEnd!: string;

  @Field(() => Int)
  exports!: number;

  @Field(() => Float)
  spans!: number;

  @Field(() => String)
  firstPosition!: string;

  @Field(() => String)
  lastPosition!: string;

  @Field(() => DateTimeScalar)
  lastTime!: string;
}

@ObjectType({ description: 'One entry of the audit trail (an event; span ingestion summed per project, hour and actor)' })
export class AuditEvent {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: 'event, or ingestion (summed span exports)' })
  kind!: string;

  @Field(() => String, { description: 'The event’s position in the log (tx:seq)' })
  position!: string;

  @Field(() => String, { nullable: true })
  eventId!: string | null;

  @Field(() => DateTimeScalar)
  time!: string;

  @Field(() => String)
  type!: string;

  @Field(() => AuditActor)
  actor!: AuditActor;

  @Field(() => String, { nullable: true })
  requestId!: string | null;

  @Field(() => AuditResource, { nullable: true })
  resource!: AuditResource | null;

  @Field(() => String)
  summary!: string;

  @Field(() => [AuditChange])
  changes!: AuditChange[];

  @Field(() => String, { nullable: true, description: 'The removal record (its position) that removed this event’s content' })
  erasedBy!: string | null;

  @Field(() => AuditIngestion, { nullable: true })
  ingestion!: AuditIngestion | null;
}

export const AuditEventConnection = connectionType('AuditEvent', () => AuditEvent);
