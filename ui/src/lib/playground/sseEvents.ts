/**
 * Splits a Server-Sent Events body into its `data:` payloads as bytes arrive. The playground run
 * is a POST, which EventSource cannot send, so the page reads the fetch body itself; a chunk may
 * end in the middle of an event, so what follows the last blank line waits for the next chunk.
 */
export const createSseParser = (onData: (data: string) => void) => {
  let buffer = '';
  const flush = (block: string) => {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data !== '') onData(data);
  };
  return {
    push(text: string): void {
      buffer += text.replaceAll('\r\n', '\n');
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        flush(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
    },
    end(): void {
      if (buffer.trim() !== '') flush(buffer);
      buffer = '';
    },
  };
};
