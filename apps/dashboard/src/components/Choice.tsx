/** A labelled select; nothing when there is nothing to choose from. */
export function Choice({
  label,
  className,
  value,
  options,
  onChange,
}: {
  label: string;
  className?: string;
  value: string | undefined;
  options: Array<{ value: string; label: string }>;
  onChange: (value: string) => void;
}) {
  if (options.length === 0) return null;
  return (
    <label className={className}>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}
