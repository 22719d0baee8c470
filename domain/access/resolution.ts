/** What a presented credential turned out to be: the value it stands for, expired, or not known. */
export type Resolution<T> =
  | { readonly status: 'valid'; readonly value: T }
  | { readonly status: 'expired' }
  | { readonly status: 'invalid' };
