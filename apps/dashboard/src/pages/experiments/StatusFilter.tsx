import { Choice } from '../../components/Choice.tsx';

/** The list's status filter: its value is the list route's `status` (empty: all but archived). */
const FILTERS = [
  { value: '', label: 'All but archived' },
  { value: 'draft', label: 'Draft' },
  { value: 'running', label: 'Running' },
  { value: 'stopped', label: 'Stopped' },
  { value: 'archived', label: 'Archived' },
  { value: 'draft,running,stopped,archived', label: 'All, archived too' },
];

export function StatusFilter({
  value,
  onChange,
}: {
  value: string;
  onChange: (value: string) => void;
}) {
  // A link may carry another list of states: it stays selectable as it is written.
  const options = FILTERS.some((f) => f.value === value)
    ? FILTERS
    : [...FILTERS, { value, label: value }];
  // "Status " keeps the space between the word and the select.
  return (
    <Choice
      label="Status "
      className="filter"
      value={value}
      options={options}
      onChange={onChange}
    />
  );
}
