import type { BucketMap } from '@arbiter/contract';
import { armColour } from '../../charts/arm-colour.ts';

/** The bucket map as one bar: each run in its variant's colour, retired hatched, unused blank. */
export function BucketBar({
  map,
  variants,
  label,
}: {
  map: BucketMap;
  variants: string[];
  label: string;
}) {
  const describe = map.runs
    .map((r) => `${r.variant ?? 'retired'} ${r.start}–${r.end - 1}`)
    .join(', ');
  return (
    <figure className="bucket-bar">
      <figcaption>{label}</figcaption>
      <svg
        viewBox={`0 0 ${map.bucket_count} 10`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${label}: ${describe || 'no buckets used'}`}
      >
        <rect x={0} y={0} width={map.bucket_count} height={10} fill="#f1f5f9" />
        {map.runs.map((r) => (
          <rect
            key={`${r.start}-${r.variant}`}
            x={r.start}
            y={0}
            width={r.end - r.start}
            height={10}
            fill={r.variant === null ? 'url(#retired)' : armColour(variants, r.variant)}
          />
        ))}
        <defs>
          <pattern id="retired" width="4" height="4" patternUnits="userSpaceOnUse">
            <rect width="4" height="4" fill="#cbd5e1" />
            <path d="M0 4 L4 0" stroke="#64748b" strokeWidth="1" />
          </pattern>
        </defs>
      </svg>
      <ul className="legend">
        {variants
          .filter((v) => map.runs.some((r) => r.variant === v))
          .map((v) => (
            <li key={v}>
              <span className="swatch" style={{ background: armColour(variants, v) }} /> {v}
            </li>
          ))}
        {map.runs.some((r) => r.variant === null) ? (
          <li>
            <span className="swatch retired" /> retired
          </li>
        ) : null}
        <li>
          <span className="swatch unused" /> never used
        </li>
      </ul>
    </figure>
  );
}
