/** One stream for every admin price: few changes, and a change is checked against all versions of its model. */
export const PRICE_STREAM = 'model-prices';
