import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, type Experiment, ok } from '../../api/client.ts';
import { BucketCountField } from '../../components/BucketCountField.tsx';
import { FrozenBucketing } from '../../components/FrozenBucketing.tsx';
import { ProblemView } from '../../components/states.tsx';
import { experimentKeys } from '../experiments/queries.ts';
import { layerKeys } from '../layers/queries.ts';
import { AllocationEditor } from './AllocationEditor.tsx';
import { currentMap, previewChange, previewCreate } from './bucket-preview.ts';
import {
  blankDraft,
  DraftError,
  draftOf,
  type EditorDraft,
  toInput,
  variantRows,
} from './form-state.ts';
import { LayerFields } from './LayerFields.tsx';
import { MetricsEditor } from './MetricsEditor.tsx';
import { TargetingEditor } from './TargetingEditor.tsx';
import { VariantsEditor } from './VariantsEditor.tsx';

/**
 * Create (no `existing`, from `initial` or a blank form) or edit: every save mints a version;
 * salt and buckets stay frozen.
 */
export function ExperimentEditor({
  existing,
  versions,
  initial,
}: {
  existing?: Experiment;
  versions?: Experiment[];
  initial?: EditorDraft;
}) {
  const [draft, setDraft] = useState<EditorDraft>(() =>
    existing ? draftOf(existing) : (initial ?? blankDraft()),
  );
  const patch = (p: Partial<EditorDraft>) => setDraft((d) => ({ ...d, ...p }));
  const { previous, preview } = useAllocationPreview(draft, existing, versions);

  const [asDraft, setAsDraft] = useState(false);
  const save = useSaveExperiment(existing);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ draft, asDraft });
  };

  return (
    <form
      onSubmit={submit}
      className="editor"
      aria-label={existing ? 'Edit experiment' : 'New experiment'}
    >
      <ExperimentBasics draft={draft} patch={patch} frozen={Boolean(existing)} />
      <AllocationEditor
        allocation={draft.allocation}
        onChange={(allocation) => patch({ allocation })}
        previous={previous}
        preview={preview}
      />
      <TargetingEditor
        value={draft.targeting}
        onChange={(targeting) => patch({ targeting })}
        saveError={save.error}
      />
      <VariantsEditor
        rows={variantRows(draft)}
        onChange={(key, p) =>
          setDraft((d) => {
            const rows = variantRows(d).map((v) => (v.key === key ? { ...v, ...p } : v));
            return { ...d, variants: rows };
          })
        }
      />
      <MetricsEditor metrics={draft.metrics} onChange={(metrics) => patch({ metrics })} />
      <EditorActions
        creating={!existing}
        pending={save.isPending}
        asDraft={asDraft}
        onAsDraft={setAsDraft}
      />
      <SaveError error={save.error} />
    </form>
  );
}

/** The bucket map now (editing) and what the draft's allocation would make of it. */
function useAllocationPreview(
  draft: EditorDraft,
  existing: Experiment | undefined,
  versions: Experiment[] | undefined,
) {
  const previous = useMemo(
    () => (existing && versions ? currentMap(existing.bucket_count, versions) : null),
    [existing, versions],
  );
  const preview = previous
    ? previewChange(previous, draft.allocation)
    : previewCreate(draft.allocation, draft.bucket_count || 1);
  return { previous, preview };
}

/** Saves the draft as a new experiment or a new version, then opens where the change shows. */
function useSaveExperiment(existing: Experiment | undefined) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ draft, asDraft }: { draft: EditorDraft; asDraft: boolean }) => {
      const body = toInput(draft);
      if (!existing) {
        const status = asDraft ? { status: 'draft' as const } : {};
        return ok(api.POST('/v1/experiments', { body: { ...body, ...status } }));
      }
      return ok(api.PUT('/v1/experiments/{id}', { params: { path: { id: existing.id } }, body }));
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: experimentKeys.list });
      await queryClient.invalidateQueries({ queryKey: experimentKeys.one(saved.id) });
      // A layer's bucket map changes with its experiments' layer_weight.
      if (saved.layer !== undefined)
        await queryClient.invalidateQueries({ queryKey: layerKeys.all });
      navigate(`/experiments/${saved.id}/${existing ? 'versions' : 'results'}`);
    },
  });
}

/**
 * Save, and on creation the choice to make a draft: assign returns null for a draft, with no
 * exposure sent, until someone starts it from its page; otherwise it runs at once, as before.
 */
function EditorActions({
  creating,
  pending,
  asDraft,
  onAsDraft,
}: {
  creating: boolean;
  pending: boolean;
  asDraft: boolean;
  onAsDraft: (asDraft: boolean) => void;
}) {
  return (
    <div className="actions">
      {creating ? (
        <label className="choice">
          <input type="checkbox" checked={asDraft} onChange={(e) => onAsDraft(e.target.checked)} />
          Create as a draft (users get your code’s default until it is started)
        </label>
      ) : null}
      <button type="submit" disabled={pending}>
        {creating ? (asDraft ? 'Create draft' : 'Create experiment') : 'Save new version'}
      </button>
    </div>
  );
}

function SaveError({ error }: { error: Error | null }) {
  if (!error) return null;
  // A draft the form cannot turn into a request: shown as a plain message, not a problem.
  return <ProblemView error={error instanceof DraftError ? new Error(error.message) : error} />;
}

/** Name, salt and bucket count; the last two are frozen once the experiment exists. */
function ExperimentBasics({
  draft,
  patch,
  frozen,
}: {
  draft: EditorDraft;
  patch: (p: Partial<EditorDraft>) => void;
  frozen: boolean;
}) {
  return (
    <fieldset className="card">
      <legend>Experiment</legend>
      <label>
        Name
        <input required value={draft.name} onChange={(e) => patch({ name: e.target.value })} />
      </label>
      {frozen ? (
        <dl className="frozen">
          <FrozenBucketing salt={draft.salt} bucketCount={draft.bucket_count} />
          <dd className="hint">
            Frozen when the experiment was created: changing either would move enrolled users.
          </dd>
        </dl>
      ) : (
        <>
          <label>
            Salt
            <input required value={draft.salt} onChange={(e) => patch({ salt: e.target.value })} />
          </label>
          <BucketCountField
            value={draft.bucket_count}
            onChange={(n) => patch({ bucket_count: n })}
          />
        </>
      )}
      <LayerFields draft={draft} patch={patch} frozen={frozen} />
    </fieldset>
  );
}
