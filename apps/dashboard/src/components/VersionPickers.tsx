/**
 * The two version selects of a comparison ("From version", "To version"), for any list of
 * numbered versions: an experiment's config versions or a prompt's.
 */
export function VersionPickers({
  versions,
  from,
  to,
  onPick,
}: {
  versions: ReadonlyArray<{ version: number }>;
  from: number;
  to: number;
  onPick: (name: 'from' | 'to', value: number) => void;
}) {
  return (
    <div className="row">
      {(['from', 'to'] as const).map((name) => (
        <label key={name}>
          {name === 'from' ? 'From version' : 'To version'}
          <select
            value={name === 'from' ? from : to}
            onChange={(e) => onPick(name, Number(e.target.value))}
          >
            {versions.map((v) => (
              <option key={v.version} value={v.version}>
                v{v.version}
              </option>
            ))}
          </select>
        </label>
      ))}
    </div>
  );
}
