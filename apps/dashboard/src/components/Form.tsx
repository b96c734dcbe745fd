import type { ReactNode } from 'react';

/** A named form whose submit stays in the page: the browser's own submit is prevented. */
export function Form({
  label,
  className,
  onSubmit,
  children,
}: {
  /** The form's accessible name. */
  label: string;
  className: string;
  onSubmit: () => void;
  children: ReactNode;
}) {
  return (
    <form
      className={className}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}
