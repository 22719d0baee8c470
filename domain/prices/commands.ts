import type { TokenPrice } from './tokenPrice.ts';

export type SetModelPrice = {
  readonly type: 'SetModelPrice';
  readonly model: string;
  readonly namePattern: string;
  readonly provider: string | null;
  readonly effectiveFrom: string;
  readonly prices: readonly TokenPrice[];
};

export type DeleteModelPrice = { readonly type: 'DeleteModelPrice'; readonly model: string; readonly effectiveFrom: string };

export type PriceCommand = SetModelPrice | DeleteModelPrice;
