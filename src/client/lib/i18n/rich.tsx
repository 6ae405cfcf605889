import { Fragment, type ReactNode } from 'react';

const slotPattern = /\uE000(\w+)\uE001/g;

/** A stand-in for a message parameter that rich() replaces with an element (private-use characters never in a translation). */
export function slot(name: string): string {
  return `\uE000${name}\uE001`;
}

/**
 * A translated sentence with elements in place of its slots, e.g. a size that must stay isolated:
 * rich(m.upload_size({ size: slot('size') }), { size: <Size bytes={n} /> }). The text reads the same.
 */
export function rich(text: string, nodes: Record<string, ReactNode>): ReactNode {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(slotPattern)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push(<Fragment key={`${match[1]}-${match.index}`}>{nodes[match[1]!]}</Fragment>);
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts.map((part, i) => (typeof part === 'string' ? <Fragment key={`t${i}`}>{part}</Fragment> : part))}</>;
}
