/**
 * The percent of users a holdout holds out (0.01 to 99.99, in steps of 0.01). `invalid` and
 * `describedBy` tie it to the errors the server answered for it, where a form shows them.
 */
export function PercentField({
  value,
  onChange,
  invalid,
  describedBy,
}: {
  value: number;
  onChange: (percent: number) => void;
  invalid?: boolean;
  describedBy?: string;
}) {
  return (
    <label>
      Percent held out
      <input
        type="number"
        min={0.01}
        max={99.99}
        step={0.01}
        required
        value={value}
        aria-invalid={invalid}
        aria-describedby={describedBy}
        onChange={(e) => onChange(Number(e.target.value))}
      />
    </label>
  );
}
