import { useId, useMemo, useState } from 'react';
import { ProblemError } from '../../api/problem.ts';
import { ProblemView } from '../../components/states.tsx';
import { textRows } from '../../components/text-rows.ts';
import { useSavedGroups } from './queries.ts';
import {
  type GroupSummary,
  readAttributes,
  readTargeting,
  savedGroupsByKey,
  type TargetingReading,
  verdict,
} from './targeting.ts';

/**
 * Who may enter: the condition as JSON, checked as it is typed with the server's own save-time
 * check, the server's refusal of the last save beside it, and a live check of sample attributes
 * against the org's saved groups, evaluated here by the clients' own evaluator.
 */
export function TargetingEditor({
  value,
  onChange,
  saveError,
}: {
  value: string;
  onChange: (text: string) => void;
  saveError: Error | null;
}) {
  const groups = useSavedGroups();
  const [sample, setSample] = useState('');
  const checkId = useId();
  const reading = readTargeting(value, groups.data ?? null);
  const broken =
    reading.kind === 'unparsable' || (reading.kind === 'condition' && reading.problems.length > 0);
  return (
    <fieldset className="card">
      <legend>Targeting</legend>
      <p className="hint">
        Who may enter, in GrowthBook’s condition language over the attributes passed to assign.
        Empty: everyone. A user it does not match gets null (control behaviour) and sends no
        exposure.
      </p>
      <label>
        Targeting condition (JSON object)
        <textarea
          rows={textRows(value, 3)}
          value={value}
          placeholder='{"plan": {"$in": ["pro", "team"]}}'
          spellCheck={false}
          aria-invalid={broken}
          aria-describedby={checkId}
          onChange={(e) => onChange(e.target.value)}
        />
      </label>
      <ConditionCheck id={checkId} reading={reading} />
      <TargetingRefusal error={saveError} />
      {groups.error ? <ProblemView error={groups.error} /> : <GroupsLine groups={groups.data} />}
      <LiveCheck
        reading={reading}
        groups={groups.data ?? null}
        sample={sample}
        onSample={setSample}
      />
    </fieldset>
  );
}

/** What the save-time check says of the condition as it stands. */
function ConditionCheck({ id, reading }: { id: string; reading: TargetingReading }) {
  const problems = reading.kind === 'condition' ? reading.problems : [];
  let line = 'Everyone may enter.';
  if (reading.kind === 'unparsable') line = reading.message;
  else if (reading.kind === 'condition')
    line =
      problems.length === 0
        ? 'The condition is readable.'
        : 'The server would refuse this condition:';
  return (
    <div
      id={id}
      role="status"
      aria-label="Condition check"
      className={`condition-check ${reading.kind === 'unparsable' || problems.length > 0 ? 'problem' : 'hint'}`}
    >
      <p>{line}</p>
      {problems.length > 0 ? (
        <ul>
          {problems.map((p) => (
            <li key={`${p.pointer}-${p.message}`}>
              <code>{p.pointer === '' ? '(the whole condition)' : p.pointer}</code>: {p.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The server's pointer errors under `#/targeting` from the last save, next to the field. */
function TargetingRefusal({ error }: { error: Error | null }) {
  if (!(error instanceof ProblemError) || !Array.isArray(error.body.errors)) return null;
  const errors = (error.body.errors as Array<{ pointer?: string; detail: string }>).filter(
    (e) => e.pointer === '#/targeting' || e.pointer?.startsWith('#/targeting/'),
  );
  if (errors.length === 0) return null;
  return (
    <div className="problem" role="alert" aria-label="Targeting refused">
      <strong>The server refused this targeting on save:</strong>
      <ul>
        {errors.map((e) => (
          <li key={`${e.pointer}-${e.detail}`}>
            <code>{e.pointer}</code>: {e.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}

function GroupsLine({ groups }: { groups: GroupSummary[] | undefined }) {
  if (groups === undefined) return <p className="hint">Loading the saved groups…</p>;
  if (groups.length === 0)
    return (
      <p className="hint">
        No saved groups yet, so <code>$inGroup</code> has none to name.
      </p>
    );
  return (
    <p className="hint">
      Saved groups for <code>$inGroup</code>:{' '}
      {groups.map((g) => `${g.key} (${g.values.length.toLocaleString('en-US')} values)`).join(', ')}
    </p>
  );
}

/** Sample attributes and whether a user with them would enter, as every client would decide. */
function LiveCheck({
  reading,
  groups,
  sample,
  onSample,
}: {
  reading: TargetingReading;
  groups: GroupSummary[] | null;
  sample: string;
  onSample: (text: string) => void;
}) {
  const byKey = useMemo(() => (groups === null ? null : savedGroupsByKey(groups)), [groups]);
  const result = verdict(reading, readAttributes(sample), byKey);
  const tone = result.matches === null ? '' : result.matches ? ' matches' : ' no-match';
  return (
    <div className="live-check">
      <label>
        Sample attributes (JSON object)
        <textarea
          rows={textRows(sample, 2)}
          value={sample}
          placeholder='{"plan": "pro", "locale": "en-GB"}'
          spellCheck={false}
          onChange={(e) => onSample(e.target.value)}
        />
      </label>
      <p className={`verdict-line${tone}`} role="status" aria-label="Live check">
        {result.text}
      </p>
    </div>
  );
}
