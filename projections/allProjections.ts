import type { Projection } from './projection.ts';

/** Every read model the server keeps, in the order their migrations apply. */
export const allProjections = (): Projection[] => [];
