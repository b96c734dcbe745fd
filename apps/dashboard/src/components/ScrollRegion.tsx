import type { ReactNode } from 'react';

/** A wide table scrolls sideways on a phone; the region is focusable so keyboards can scroll it. */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus (WCAG 2.1.1)
    <section className="table-wrap" tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}
