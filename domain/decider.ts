/** An event as a decider sees it: no metadata, so deciders stay pure and replayable. */
export type DomainEvent<T extends string = string, D = unknown> = { readonly type: T; readonly data: D };

/**
 * Three pure functions: the whole write-side model of one aggregate. No classes, no I/O.
 * `decide` throws a DomainError when a rule is broken; it returns the events to append otherwise
 * (an empty list means "nothing to do", e.g. an idempotent repeat).
 */
export type Decider<State, Command, Event extends DomainEvent> = {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State) => readonly Event[];
};

export const fold = <State, Event extends DomainEvent>(
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State => events.reduce(decider.evolve, decider.initialState());
