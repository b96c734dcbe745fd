import { METHODS } from '@arbiter/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type Method, ok } from '../../api/client.ts';
import { ProblemView } from '../../components/states.tsx';
import { experimentKeys } from '../experiments/queries.ts';

/** Per-metric test override (audited); it applies from the next run on. */
export function MethodOverride({
  id,
  metric,
  current,
}: {
  id: string;
  metric: string;
  current: string;
}) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState(current);
  const save = useMutation({
    mutationFn: (method: Method | null) =>
      ok(
        api.PUT('/v1/experiments/{id}/metrics/{metric}/method', {
          params: { path: { id, metric } },
          body: { method },
        }),
      ),
    onSuccess: (r) => {
      setValue(r.method);
      void queryClient.invalidateQueries({ queryKey: experimentKeys.one(id) });
    },
  });
  return (
    <div className="method">
      <label>
        Test for {metric}
        <select
          value={value}
          onChange={(e) => {
            setValue(e.target.value);
            save.mutate(e.target.value as Method);
          }}
        >
          {METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
      <button
        type="button"
        onClick={() => save.mutate(null)}
        aria-label={`Use default test for ${metric}`}
      >
        Use default
      </button>
      {save.data ? (
        <span role="status" className="hint">
          {save.data.overridden ? 'Overridden' : 'Default'}: {save.data.method}, from the next run
          on.
        </span>
      ) : null}
      {save.error ? <ProblemView error={save.error} /> : null}
    </div>
  );
}
