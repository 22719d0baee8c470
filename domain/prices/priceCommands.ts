import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { DeleteModelPrice, SetModelPrice } from './commands.ts';
import type { PriceEvent } from './events.ts';
import { priceDecider } from './priceDecider.ts';
import { PRICE_STREAM } from './priceStream.ts';

/** An admin's price for a model from a date on. Throws a DomainError naming a bad field. */
export const setModelPrice = (
  store: EventStore,
  input: Omit<SetModelPrice, 'type'>,
  context: CommandContext,
): Promise<CommandResult<PriceEvent>> => handleCommand(store, PRICE_STREAM, priceDecider, { type: 'SetModelPrice', ...input }, context);

/** Takes one admin price version back. Throws `price_not_found` when there is none. */
export const deleteModelPrice = (
  store: EventStore,
  input: Omit<DeleteModelPrice, 'type'>,
  context: CommandContext,
): Promise<CommandResult<PriceEvent>> => handleCommand(store, PRICE_STREAM, priceDecider, { type: 'DeleteModelPrice', ...input }, context);
