/** One stream for all secrets, so a batch is one append: all of it lands or none. */
export const SECRETS_STREAM = 'secrets';
