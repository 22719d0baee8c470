import { openHref } from '../../router.ts';

/**
 * A Svelte action for a table row that stands for a page: a click anywhere on the row opens it,
 * as on the Traces, Spans and Sessions tables, not only a click on its name link. Clicks on the
 * row's own controls (links, buttons, boxes) keep their meaning, and a drag that selected text
 * (to copy a cell) opens nothing.
 */
export const opensOnClick = (row: HTMLElement, href: string) => {
  let target = href;
  row.classList.add('opens');
  const onclick = (event: MouseEvent) => {
    if ((event.target as Element | null)?.closest('a, button, input, select, textarea, label, summary, details')) return;
    if (window.getSelection()?.toString()) return;
    void openHref(target);
  };
  row.addEventListener('click', onclick);
  return {
    update: (next: string) => {
      target = next;
    },
    destroy: () => row.removeEventListener('click', onclick),
  };
};
