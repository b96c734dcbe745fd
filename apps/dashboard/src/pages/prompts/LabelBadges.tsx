/** Each label with the version it points at ("production → v3"), production first. */
export function LabelBadges({ labels }: { labels: Record<string, number> }) {
  const names = Object.keys(labels).sort((a, b) =>
    a === 'production' ? -1 : b === 'production' ? 1 : a.localeCompare(b),
  );
  if (names.length === 0) return <span className="hint">no label</span>;
  return (
    <span className="label-badges">
      {names.map((l) => (
        <span key={l} className="badge" data-testid={`label-${l}`}>
          {l} → v{labels[l]}
        </span>
      ))}
    </span>
  );
}
