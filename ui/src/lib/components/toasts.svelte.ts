export type Toast = { readonly id: number; readonly message: string; readonly kind: 'success' | 'error' };

let nextId = 1;

/** Short confirmations ("User created") that leave by themselves. */
export const toasts = $state<Toast[]>([]);

export const toast = (message: string, kind: Toast['kind'] = 'success'): void => {
  const id = nextId++;
  toasts.push({ id, message, kind });
  // A burst of actions shows the latest few, not a column up the screen.
  if (toasts.length > 3) toasts.splice(0, toasts.length - 3);
  setTimeout(() => {
    const index = toasts.findIndex((t) => t.id === id);
    if (index >= 0) toasts.splice(index, 1);
  }, 3500);
};
