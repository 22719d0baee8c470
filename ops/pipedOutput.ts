type Output = NodeJS.WritableStream & { readonly writableNeedDrain?: boolean };

/**
 * An output whose reader may stop early (`loupe events export | head -1`). When the reader goes,
 * the pipe's next write fails (EPIPE): the stream emits 'error' and 'close' and never 'drain', and
 * process.stdout still says it needs a drain (it cannot be destroyed), so waiting for 'drain'
 * hung the export for as long as the process lived. Made before the first write, this watches for
 * that: a write resolves once written, buffered within limits, or failed, and says whether anyone
 * is still reading, so the writer stops reading its source and exits at once.
 */
export type PipedOutput = {
  /** Resolves true when written (or buffered within limits), false once the reader is gone. */
  write(text: string): Promise<boolean>;
  /** Resolves once what is buffered is written, or can never be (the reader is gone). */
  flush(): Promise<void>;
  /** The error that ended the output other than the reader leaving (EPIPE), e.g. a full disk. */
  readonly failure: Error | null;
};

export const pipedOutput = (stream: Output): PipedOutput => {
  let gone = false;
  let failure: Error | null = null;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    gone = true;
    if (error.code !== 'EPIPE') failure = error;
  });
  stream.on('close', () => (gone = true));

  const flush = (): Promise<void> =>
    new Promise((resolve) => {
      if (gone || !stream.writableNeedDrain) return resolve();
      const done = () => {
        clearInterval(alive);
        stream.removeListener('drain', done);
        stream.removeListener('error', done);
        stream.removeListener('close', done);
        resolve();
      };
      // A write waiting in a pipe keeps no handle of the event loop alive, so the process could end
      // with it still waiting ("unsettled top-level await") before the pipe is polled again and its
      // error noticed: a ref'd timer keeps the loop turning until one or the other.
      const alive = setInterval(() => {
        if (gone || !stream.writableNeedDrain) done();
      }, 100);
      stream.once('drain', done);
      stream.once('error', done);
      stream.once('close', done);
    });

  return {
    get failure() {
      return failure;
    },
    flush,
    write: async (text) => {
      if (gone) return false;
      if (!stream.write(text)) await flush();
      return !gone;
    },
  };
};
