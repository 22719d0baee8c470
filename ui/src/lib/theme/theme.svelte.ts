/**
 * Light or dark pages: by default as the system says (and following it when it changes), or as
 * the person chose in the sidebar; the choice is kept in this browser (localStorage).
 */

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];
const KEY = 'loupe-theme';

const stored = (): ThemeChoice => {
  try {
    const value = window.localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system'; // storage refused (a privacy mode): follow the system
  }
};

const systemIsDark = () => window.matchMedia('(prefers-color-scheme: dark)');

class Theme {
  choice = $state<ThemeChoice>('system');

  /** Reads the stored choice, applies it and follows the system's setting from now on. */
  start(): void {
    this.choice = stored();
    this.apply();
    systemIsDark().addEventListener('change', () => this.apply());
  }

  set(choice: ThemeChoice): void {
    this.choice = choice;
    try {
      if (choice === 'system') window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, choice);
    } catch {
      // not kept, but applied for this page
    }
    this.apply();
  }

  private apply(): void {
    const dark = this.choice === 'dark' || (this.choice === 'system' && systemIsDark().matches);
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  }
}

export const theme = new Theme();
