import type { DatabasePool } from 'slonik';
import type { EventStore } from '../domain/eventstore/types.ts';
import type { AnyReactor } from '../projections/reactors/reactor.ts';
import type { Config } from './config.ts';

export type ReactorDeps = { readonly config: Config; readonly store: EventStore; readonly pool: DatabasePool };

/**
 * Every reactor the server runs (projections/reactors/reactor.ts), built from the configuration.
 * Each concrete reactor lives in its feature's folder (`projections/<feature>/<x>Reactor.ts`);
 * this is the one list, as `projections/allProjections.ts` is for read models.
 */
export const createReactors = (_deps: ReactorDeps): AnyReactor[] => [];
