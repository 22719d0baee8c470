import type { IconName } from '../lib/components/Icon.svelte';

type SessionView = { readonly isAdmin: boolean; readonly authEnabled: boolean };

export type NavItem = {
  readonly label: string;
  /** Path inside the app (the router adds the root path). */
  readonly path: string;
  readonly icon: IconName;
  readonly visible: (session: SessionView) => boolean;
};

/** The sidebar's sections, in order. Later features (datasets, prompts, ...) add a line here. */
export const NAV_ITEMS: readonly NavItem[] = [
  { label: 'Projects', path: '/projects', icon: 'projects', visible: () => true },
  { label: 'Datasets', path: '/datasets', icon: 'datasets', visible: () => true },
  { label: 'Prompts', path: '/prompts', icon: 'prompts', visible: () => true },
  { label: 'Playground', path: '/playground', icon: 'activity', visible: () => true },
  { label: 'Settings', path: '/settings', icon: 'settings', visible: (s) => s.isAdmin },
];
