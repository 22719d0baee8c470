/** A link a toast offers (to what was just made), shown after its message. */
export type ToastLink = { readonly href: string; readonly label: string };

export type Toast = { readonly id: number; readonly message: string; readonly kind: 'success' | 'error'; readonly link?: ToastLink };

let nextId = 1;

/** Short confirmations ("User created") that leave by themselves. */
export const toasts = $state<Toast[]>([]);

export const toast = (message: string, kind: Toast['kind'] = 'success', link?: ToastLink): void => {
  const id = nextId++;
  toasts.push({ id, message, kind, ...(link ? { link } : {}) });
  // A burst of actions shows the latest few, not a column up the screen.
  if (toasts.length > 3) toasts.splice(0, toasts.length - 3);
  // A toast with a link stays long enough to be followed.
  setTimeout(
    () => {
      const index = toasts.findIndex((t) => t.id === id);
      if (index >= 0) toasts.splice(index, 1);
    },
    link ? 8000 : 3500,
  );
};
