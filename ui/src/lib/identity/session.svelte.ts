import { DEFAULT_CONFIG, fetchConfig, type UiConfig } from '../config.ts';
import { fetchViewer, type Viewer } from './viewer.ts';

/**
 * Who is using the page and what the server allows them. The role decides which controls show;
 * the server decides what happens (a refused write shows its message), so this is comfort, not
 * security.
 */
class Session {
  config = $state<UiConfig>({ ...DEFAULT_CONFIG });
  viewer = $state<Viewer | null>(null);
  /** Whether the viewer was fetched since the page loaded or the person signed in. */
  loaded = $state(false);

  get signedIn(): boolean {
    return !this.config.authEnabled || this.viewer !== null;
  }

  get role() {
    return this.config.authEnabled ? (this.viewer?.role ?? null) : null;
  }

  /** Auth off: everything is open, as on the server. */
  get isAdmin(): boolean {
    return !this.config.authEnabled || this.role === 'ADMIN';
  }

  /** Create and change traces, projects, keys of one's own: admins and members. */
  get canWrite(): boolean {
    return !this.config.authEnabled || this.role === 'ADMIN' || this.role === 'MEMBER';
  }

  async load(): Promise<Viewer | null> {
    const [viewer, config] = await Promise.all([fetchViewer(), this.config.authEnabled ? fetchConfig(this.config.rootPath) : null]);
    this.viewer = viewer;
    // The management link depends on who is signed in, so it is asked again with the session.
    if (config !== null) this.config = config;
    this.loaded = true;
    return viewer;
  }

  forget(): void {
    this.viewer = null;
    this.loaded = false;
  }
}

export const session = new Session();
