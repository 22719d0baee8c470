import type { TreeSpan } from './tracingTypes.ts';

export type SpanNode = {
  readonly span: TreeSpan;
  readonly startMs: number;
  readonly children: SpanNode[];
};

export type SpanTree = {
  readonly roots: readonly SpanNode[];
  readonly byId: ReadonlyMap<string, SpanNode>;
  /** Earliest start and latest end over all spans: the waterfall's scale. */
  readonly startMs: number;
  readonly endMs: number;
};

/** One visible row of the tree, in display order. */
export type TreeRow = {
  readonly node: SpanNode;
  readonly depth: number;
  readonly expanded: boolean;
};

/**
 * An ISO time to fractional milliseconds, keeping the microseconds the API sends: spans that
 * start within the same millisecond still sort in their true order.
 */
export const isoToMs = (iso: string): number => {
  const fraction = /\.(\d+)Z$/.exec(iso)?.[1];
  if (fraction === undefined || fraction.length <= 3) return Date.parse(iso);
  return Date.parse(iso.replace(/\.\d+Z$/, 'Z')) + Number(`0.${fraction}`) * 1000;
};

const byStart = (a: SpanNode, b: SpanNode) => a.startMs - b.startMs || a.span.spanId.localeCompare(b.span.spanId);

/**
 * Spans (in any order) as a tree by parent id. A span whose parent never arrived (still in
 * flight, or dropped by the exporter) is shown as a root rather than hidden. Siblings are in
 * start order. Iterative, so a 10,000-deep chain of spans cannot overflow the stack.
 */
export const buildSpanTree = (spans: readonly TreeSpan[]): SpanTree => {
  const byId = new Map<string, SpanNode>();
  let startMs = Number.POSITIVE_INFINITY;
  let endMs = Number.NEGATIVE_INFINITY;
  for (const span of spans) {
    const start = isoToMs(span.startTime);
    startMs = Math.min(startMs, start);
    endMs = Math.max(endMs, start + span.latencyMs);
    byId.set(span.spanId, { span, startMs: start, children: [] });
  }
  const roots: SpanNode[] = [];
  for (const node of byId.values()) {
    const parent = node.span.parentId === null ? undefined : byId.get(node.span.parentId);
    if (parent === undefined || parent === node) roots.push(node);
    else parent.children.push(node);
  }
  roots.sort(byStart);
  for (const node of byId.values()) if (node.children.length > 1) node.children.sort(byStart);
  if (!Number.isFinite(startMs)) startMs = endMs = 0;
  return { roots, byId, startMs, endMs };
};

/** The rows on screen: every node whose ancestors are all expanded, depth first. */
export const visibleRows = (tree: SpanTree, collapsed: ReadonlySet<string>): TreeRow[] => {
  const rows: TreeRow[] = [];
  const stack: { node: SpanNode; depth: number }[] = [];
  for (let i = tree.roots.length - 1; i >= 0; i--) stack.push({ node: tree.roots[i]!, depth: 0 });
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    const expanded = !collapsed.has(node.span.spanId);
    rows.push({ node, depth, expanded });
    if (expanded) for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
  }
  return rows;
};

/** Ids to collapse so that only the first `levels` levels show (a huge trace opens readable). */
export const collapseBelow = (tree: SpanTree, levels: number): Set<string> => {
  const collapsed = new Set<string>();
  const stack = tree.roots.map((node) => ({ node, depth: 0 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node.children.length === 0) continue;
    if (depth >= levels - 1) collapsed.add(node.span.spanId);
    else for (const child of node.children) stack.push({ node: child, depth: depth + 1 });
  }
  return collapsed;
};

/** The ancestors of a span (to expand so that it can be shown), nearest first. */
export const ancestorsOf = (tree: SpanTree, spanId: string): string[] => {
  const out: string[] = [];
  const seen = new Set<string>([spanId]);
  let parentId = tree.byId.get(spanId)?.span.parentId ?? null;
  while (parentId !== null && !seen.has(parentId)) {
    const parent = tree.byId.get(parentId);
    if (parent === undefined) break;
    out.push(parentId);
    seen.add(parentId);
    parentId = parent.span.parentId;
  }
  return out;
};

/** Where a span's bar sits in the waterfall, as fractions of the trace's duration. */
export const barOf = (tree: SpanTree, node: SpanNode): { left: number; width: number } => {
  const total = tree.endMs - tree.startMs;
  if (total <= 0) return { left: 0, width: 1 };
  const left = (node.startMs - tree.startMs) / total;
  return { left: Math.min(Math.max(left, 0), 1), width: Math.min(Math.max(node.span.latencyMs / total, 0), 1 - left) };
};

/** How many spans sit below a node (shown on collapsed rows). */
export const descendantCount = (node: SpanNode): number => {
  let count = 0;
  const stack = [...node.children];
  while (stack.length > 0) {
    const next = stack.pop()!;
    count++;
    stack.push(...next.children);
  }
  return count;
};
