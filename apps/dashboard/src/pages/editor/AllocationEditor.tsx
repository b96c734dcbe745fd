import type { BucketMap } from '@arbiter/contract';
import { BucketBar } from './BucketBar.tsx';
import type { Preview } from './bucket-preview.ts';
import type { EditorDraft } from './form-state.ts';

type Allocation = EditorDraft['allocation'];

export function AllocationEditor({
  allocation,
  onChange,
  previous,
  preview,
}: {
  allocation: Allocation;
  onChange: (a: Allocation) => void;
  previous: BucketMap | null;
  preview: Preview;
}) {
  const set = (i: number, patch: Partial<Allocation[number]>) =>
    onChange(allocation.map((a, j) => (j === i ? { ...a, ...patch } : a)));
  const names = [...new Set([...allocation.map((a) => a.variant)])];
  const total = allocation.reduce((n, a) => n + a.weight, 0);
  return (
    <fieldset className="card">
      <legend>Allocation</legend>
      <p className="hint">
        Weights are percentages of all users; the first slice is the control arm. Users outside
        every slice are not enrolled. Total: {Math.round(total * 100) / 100}%
      </p>
      {allocation.map((a, i) => (
        <SliceRow
          key={`slice-${i.toString()}`}
          slice={a}
          index={i}
          onSet={(patch) => set(i, patch)}
          onRemove={
            allocation.length <= 1 ? null : () => onChange(allocation.filter((_, j) => j !== i))
          }
        />
      ))}
      <button type="button" onClick={() => onChange([...allocation, { variant: '', weight: 0 }])}>
        Add variant
      </button>
      {previous ? <BucketBar map={previous} variants={names} label="Bucket map now" /> : null}
      <BucketBar
        map={preview.map}
        variants={names}
        label={bucketMapLabel(previous !== null, preview.ok)}
      />
      <ChangeSummary preview={preview} editing={previous !== null} />
    </fieldset>
  );
}

function bucketMapLabel(editing: boolean, accepted: boolean): string {
  if (!editing) return 'Bucket map of version 1';
  return accepted
    ? 'Bucket map after saving'
    : 'Bucket map after saving: unchanged, the change is refused';
}

/** One slice of the allocation: its variant, its weight, and a remove button (none for the last). */
function SliceRow({
  slice,
  index,
  onSet,
  onRemove,
}: {
  slice: Allocation[number];
  index: number;
  onSet: (patch: Partial<Allocation[number]>) => void;
  onRemove: (() => void) | null;
}) {
  const label = slice.variant || `variant ${index + 1}`;
  return (
    <div className="row">
      <label>
        Variant {index + 1}
        <input value={slice.variant} onChange={(e) => onSet({ variant: e.target.value })} />
      </label>
      <label>
        Weight of {label} (%)
        <input
          type="number"
          min={0}
          max={100}
          step={0.01}
          value={slice.weight}
          onChange={(e) => onSet({ weight: Number(e.target.value) })}
        />
      </label>
      <button
        type="button"
        onClick={onRemove ?? undefined}
        disabled={onRemove === null}
        aria-label={`Remove ${label}`}
      >
        Remove
      </button>
    </div>
  );
}

function ChangeSummary({ preview, editing }: { preview: Preview; editing: boolean }) {
  if (!preview.ok)
    return (
      <div className="problem" role="status">
        <strong>This change would move users, so the server will refuse it.</strong>
        <p>{preview.reason}</p>
      </div>
    );
  if (!editing) return null;
  const moved = preview.changes.filter((c) => c.retired > 0 || c.added > 0);
  return (
    <div className="preview" role="status" aria-label="What this change does to enrolled users">
      {moved.length === 0 ? (
        <p>No enrolled user changes variant; nobody is added or removed.</p>
      ) : (
        <ul>
          {moved.map((c) => (
            <li key={c.variant}>
              <strong>{c.variant}</strong>: {c.before} → {c.after} buckets.{' '}
              {c.retired > 0
                ? `${c.retired} buckets retire: their users drop to no variant (control behaviour) and never get another variant. `
                : ''}
              {c.added > 0
                ? `${c.added} never-used buckets join: new users enter; nobody already enrolled moves.`
                : ''}
            </li>
          ))}
        </ul>
      )}
      <p className="hint">
        {preview.unused} buckets never used; {preview.retired} retired for good.
      </p>
    </div>
  );
}
