import type { ReactNode } from 'react';
import { Form } from './Form.tsx';
import { ProblemView } from './states.tsx';

/**
 * A form that sends one mutation: its fields, a submit button that is off while the mutation is
 * pending, what follows the button (a note, an answer) and then the mutation's problem, if any.
 */
export function MutationForm({
  label,
  className,
  mutation,
  submit,
  onSubmit,
  inActions = false,
  after,
  children,
}: {
  /** The form's accessible name. */
  label: string;
  className: string;
  mutation: { isPending: boolean; error: unknown };
  /** The submit button's text. */
  submit: string;
  onSubmit: () => void;
  /** The button stands in an `actions` row of its own. */
  inActions?: boolean;
  after?: ReactNode;
  children: ReactNode;
}) {
  const button = (
    <button type="submit" disabled={mutation.isPending}>
      {submit}
    </button>
  );
  return (
    <Form className={className} label={label} onSubmit={onSubmit}>
      {children}
      {inActions ? <div className="actions">{button}</div> : button}
      {after}
      {mutation.error ? <ProblemView error={mutation.error} /> : null}
    </Form>
  );
}
