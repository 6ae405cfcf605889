import { useLayoutEffect, useRef } from 'react';

/**
 * A job's output log (deploys, the admin page's maintenance jobs): scrollable and monospace, scrolled to
 * its newest line as lines arrive unless the reader scrolled up to read older ones.
 */
export function JobLog({ lines, label, className }: { lines: readonly string[]; label: string; className?: string }) {
  const ref = useRef<HTMLPreElement>(null);
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    const element = ref.current;
    if (element && atEnd.current) element.scrollTop = element.scrollHeight;
  }, [lines]);
  return (
    <pre
      ref={ref}
      className={className ? `job_log ${className}` : 'job_log'}
      dir="ltr"
      // Scrollable: reachable by keyboard, named for screen readers.
      tabIndex={0}
      role="log"
      aria-label={label}
      onScroll={(event) => {
        const element = event.currentTarget;
        atEnd.current = element.scrollHeight - element.scrollTop - element.clientHeight < 8;
      }}
    >
      {lines.join('\n')}
    </pre>
  );
}
