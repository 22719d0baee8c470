/**
 * A dialog's action in flight: `busy` disables its button meanwhile, `error` holds the server's
 * refusal for the dialog to show (it stays open, so nothing typed is lost).
 */
export class Submission {
  busy = $state(false);
  error = $state<unknown>(null);

  /** Runs `action`; true when it went through. */
  async run(action: () => Promise<void>): Promise<boolean> {
    this.busy = true;
    this.error = null;
    try {
      await action();
      return true;
    } catch (e) {
      this.error = e;
      return false;
    } finally {
      this.busy = false;
    }
  }
}
