import { Link } from 'react-router';
import { textRows } from '../../components/text-rows.ts';
import type { VariantDraft } from './form-state.ts';

/** Prompt text and custom variables per variant (what the client libraries read). */
export function VariantsEditor({
  rows,
  onChange,
}: {
  rows: VariantDraft[];
  onChange: (key: string, patch: Partial<VariantDraft>) => void;
}) {
  return (
    <fieldset className="card">
      <legend>Variants</legend>
      {rows.map((v) => (
        <div key={v.key} className="variant">
          <h3>{v.key}</h3>
          {v.promptRef && v.prompt === '' ? <PromptReference variant={v} /> : null}
          <label>
            Prompt of {v.key}
            <textarea
              rows={textRows(v.prompt, 3)}
              value={v.prompt}
              onChange={(e) => onChange(v.key, { prompt: e.target.value })}
            />
          </label>
          <label>
            Variables of {v.key} (JSON object)
            <textarea
              rows={textRows(v.variables, 2)}
              value={v.variables}
              placeholder='{"temperature": 0.2}'
              onChange={(e) => onChange(v.key, { variables: e.target.value })}
            />
          </label>
        </div>
      ))}
    </fieldset>
  );
}

/** A variant on a stored prompt version: named and linked; typed text would replace it. */
function PromptReference({ variant: v }: { variant: VariantDraft }) {
  if (!v.promptRef) return null;
  const { name, version } = v.promptRef;
  return (
    <p className="prompt-ref" data-testid={`prompt-ref-${v.key}`}>
      Stored prompt: <Link to={`/prompts/${encodeURIComponent(name)}`}>{name}</Link> version{' '}
      {version}
      <span className="hint"> (a prompt typed below replaces the reference)</span>
    </p>
  );
}
