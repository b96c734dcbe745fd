import type { BucketMap } from '@arbiter/contract';

const PALETTE = ['#2563eb', '#d97706', '#059669', '#7c3aed', '#db2777', '#0891b2', '#65a30d'];

export function variantColor(variants: string[], variant: string): string {
  const i = variants.indexOf(variant);
  return PALETTE[Math.max(i, 0) % PALETTE.length] as string;
}

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
            fill={r.variant === null ? 'url(#retired)' : variantColor(variants, r.variant)}
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
              <span className="swatch" style={{ background: variantColor(variants, v) }} /> {v}
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
