import { apiUrl, errorOf, renewSession, sessionLost } from './http.ts';

/**
 * Files the server exports (a dataset's CSV, JSONL, fine-tune JSONL), read by the page instead of
 * a plain link: it can count what has arrived so far (a large set takes a while, and a link shows
 * nothing on the page), renew an expired session as every other call does, and show the server's
 * refusal in its words rather than saving it as the file.
 */

/** Bytes as a person reads them: 512 B, 14.2 KB, 3.1 MB. */
export const formatBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

/** The file name a Content-Disposition header gives (RFC 6266: filename* first), or `fallback`. */
export const fileNameOf = (disposition: string | null, fallback: string): string => {
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? '')?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended);
    } catch {
      // a malformed escape: the plain name, or the fallback
    }
  }
  return /filename="?([^";]+)"?/i.exec(disposition ?? '')?.[1] ?? fallback;
};

/** Hands a file to the browser's downloads, as a link with `download` would. */
export const saveFile = (content: Blob, fileName: string): void => {
  const url = URL.createObjectURL(content);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
};

/**
 * GETs `path` and saves the answer under the name the server gives; `onprogress` hears the bytes
 * received so far and the total when the server said it.
 */
export const downloadFile = async (
  path: string,
  fallbackName: string,
  onprogress: (received: number, total: number | null) => void,
  signal?: AbortSignal,
): Promise<void> => {
  const get = () => fetch(apiUrl(path), { credentials: 'same-origin', signal });
  let response = await get();
  if (response.status === 401) {
    if (await renewSession()) response = await get();
    if (response.status === 401) sessionLost();
  }
  if (!response.ok) throw await errorOf(response);
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  const parts: Uint8Array[] = [];
  let received = 0;
  onprogress(0, total);
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.byteLength;
    onprogress(received, total);
  }
  const type = response.headers.get('content-type') ?? 'application/octet-stream';
  saveFile(new Blob(parts as BlobPart[], { type }), fileNameOf(response.headers.get('content-disposition'), fallbackName));
};
