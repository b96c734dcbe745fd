import { QueryView } from '../../components/states.tsx';
import { useLayers } from '../layers/queries.ts';
import type { EditorDraft } from './form-state.ts';

type Patch = (p: Partial<EditorDraft>) => void;

/**
 * The layer, chosen at creation (frozen after: moving would mix two experiments' users), and the
 * layer weight, the percent of the layer's users the experiment may take; growing it later takes
 * never-used buckets, which the server checks.
 */
export function LayerFields({
  draft,
  patch,
  frozen,
}: {
  draft: EditorDraft;
  patch: Patch;
  frozen: boolean;
}) {
  if (frozen && draft.layer === '') return null;
  const weight = <LayerWeight draft={draft} patch={patch} />;
  if (frozen)
    return (
      <>
        <dl className="frozen">
          <dt>Layer</dt>
          <dd>{draft.layer}</dd>
        </dl>
        {weight}
      </>
    );
  return <LayerChoice draft={draft} patch={patch} />;
}

function LayerWeight({ draft, patch }: { draft: EditorDraft; patch: Patch }) {
  return (
    <label>
      Layer weight (%)
      <input
        type="number"
        min={0.01}
        max={100}
        step={0.01}
        required
        value={draft.layer_weight}
        onChange={(e) => patch({ layer_weight: Number(e.target.value) })}
      />
    </label>
  );
}

function LayerChoice({ draft, patch }: { draft: EditorDraft; patch: Patch }) {
  const layers = useLayers();
  return (
    <QueryView query={layers} what="layers">
      {(list) => (
        <>
          <label>
            Layer
            <select
              value={draft.layer}
              onChange={(e) =>
                patch({
                  layer: e.target.value,
                  layer_weight: e.target.value === '' ? 0 : draft.layer_weight || 50,
                })
              }
            >
              <option value="">None: every user may enter</option>
              {list.map((l) => (
                <option key={l.id} value={l.name}>
                  {l.name} ({((100 * l.free_buckets) / l.bucket_count).toFixed(2)}% free)
                </option>
              ))}
            </select>
          </label>
          {draft.layer === '' ? null : <LayerWeight draft={draft} patch={patch} />}
        </>
      )}
    </QueryView>
  );
}
