import { Link } from 'react-router';
import type { Prompt, PromptVersion } from '../../api/client.ts';

/** One version as written: its template, variables, model settings and note. */
export function VersionCard({ prompt, version: v }: { prompt: Prompt; version: PromptVersion }) {
  const labels = Object.entries(prompt.labels)
    .filter(([, n]) => n === v.version)
    .map(([l]) => l);
  return (
    <article className="card prompt-version" aria-labelledby={`version-${v.version}`}>
      <h3 id={`version-${v.version}`}>
        Version {v.version}
        {labels.map((l) => (
          <span key={l} className="badge">
            {l}
          </span>
        ))}
      </h3>
      <p className="hint">
        {new Date(v.created_at).toLocaleString()}
        {v.note ? ` · ${v.note}` : ''}
      </p>
      <Template version={v} />
      <dl className="frozen">
        <dt>Variables</dt>
        <dd>{v.variables.length === 0 ? 'none' : v.variables.join(', ')}</dd>
        <dt>Model settings</dt>
        <dd>
          <pre>{JSON.stringify(v.model_settings ?? {}, null, 2)}</pre>
        </dd>
      </dl>
      <StartFromVersion prompt={prompt} version={v.version} />
    </article>
  );
}

function Template({ version: v }: { version: PromptVersion }) {
  if (v.text !== undefined) return <pre className="template">{v.text}</pre>;
  return (
    <dl className="messages">
      {(v.messages ?? []).map((m, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a version's messages never change order
        <div key={i}>
          <dt>{m.role}</dt>
          <dd>
            <pre className="template">{m.content}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Opens the experiment editor with two arms, control on production's version and treatment on
 * this one, both as references. Production itself, or a prompt without production, has
 * nothing to be tested against, and says so.
 */
function StartFromVersion({ prompt, version }: { prompt: Prompt; version: number }) {
  const production = prompt.labels.production;
  if (production === undefined)
    return <p className="hint">No production label yet: nothing to test this version against.</p>;
  if (production === version) return <p className="hint">This is the production version.</p>;
  const query = new URLSearchParams({ prompt: prompt.name, version: String(version) });
  return (
    <Link className="button" to={`/experiments/new?${query}`}>
      Start an experiment: v{version} against production (v{production})
    </Link>
  );
}
