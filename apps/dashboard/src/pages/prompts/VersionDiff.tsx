import { useSearchParams } from 'react-router';
import type { PromptVersion } from '../../api/client.ts';
import { ScrollRegion } from '../../components/ScrollRegion.tsx';
import { VersionPickers } from '../../components/VersionPickers.tsx';
import { changed, type DiffLine, lineDiff, settingsText, templateText } from './version-diff.ts';

/**
 * Any two versions compared (`?from=&to=` in the URL; by default the newest against the one
 * before): a line diff of the template and one of the variables and model settings.
 */
export function VersionDiff({ versions }: { versions: PromptVersion[] }) {
  const [params, setParams] = useSearchParams();
  if (versions.length < 2)
    return (
      <p className="hint" data-testid="one-version">
        There is one version so far: the differences between any two show here.
      </p>
    );
  const newest = versions[0]?.version ?? 1;
  const from = Number(params.get('from') ?? newest - 1);
  const to = Number(params.get('to') ?? newest);
  const a = versions.find((v) => v.version === from);
  const b = versions.find((v) => v.version === to);
  const pick = (name: 'from' | 'to', value: number) =>
    setParams({ from: String(from), to: String(to), [name]: String(value) }, { replace: true });
  return (
    <section className="card" aria-labelledby="compare-heading">
      <h2 id="compare-heading">Compare versions</h2>
      <VersionPickers versions={versions} from={from} to={to} onPick={pick} />
      {a && b ? (
        <>
          <h3>Template</h3>
          <Lines
            label={`Template from v${from} to v${to}`}
            lines={lineDiff(templateText(a), templateText(b))}
          />
          <h3>Variables and model settings</h3>
          <Lines
            label={`Variables and model settings from v${from} to v${to}`}
            lines={lineDiff(settingsText(a), settingsText(b))}
          />
        </>
      ) : (
        <p className="hint">Choose two versions the prompt has.</p>
      )}
    </section>
  );
}

const SIGN = { same: ' ', added: '+', removed: '−' } as const;
const SPOKEN = { same: '', added: 'added: ', removed: 'removed: ' } as const;

/** The lines in order; added and removed ones marked by a sign and words, not colour alone. */
function Lines({ label, lines }: { label: string; lines: DiffLine[] }) {
  if (!changed(lines)) return <p className="hint">No differences.</p>;
  return (
    <ScrollRegion label={label}>
      <ol className="line-diff" data-testid={label}>
        {lines.map((l, i) => {
          const body = (
            <>
              <span className="sr-only">{SPOKEN[l.kind]}</span>
              <span aria-hidden="true" className="sign">
                {SIGN[l.kind]}
              </span>
              {l.text}
            </>
          );
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines have no identity but their place
            <li key={i} className={l.kind}>
              {l.kind === 'added' ? (
                <ins>{body}</ins>
              ) : l.kind === 'removed' ? (
                <del>{body}</del>
              ) : (
                body
              )}
            </li>
          );
        })}
      </ol>
    </ScrollRegion>
  );
}
