/**
 * The frozen bucket count of an experiment, a layer or a holdout, as the contract bounds it
 * (1 to 1,000,000). One field so the three forms cannot drift apart on its limits.
 */
export function BucketCountField({
  value,
  onChange,
}: {
  value: number;
  onChange: (bucketCount: number) => void;
}) {
  return (
    <label>
      Bucket count
      <input
        type="number"
        min={1}
        max={1000000}
        required
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
      />
    </label>
  );
}
