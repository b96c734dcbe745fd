import { detailPage } from '../../components/DetailPage.tsx';
import { LabelBadges } from './LabelBadges.tsx';
import { LabelsCard } from './LabelsCard.tsx';
import { PromptExperiments } from './PromptExperiments.tsx';
import { usePrompt } from './queries.ts';
import { VersionCard } from './VersionCard.tsx';
import { VersionDiff } from './VersionDiff.tsx';

/**
 * `/prompts/:name`: its labels and their history, the experiments that used its versions, the
 * difference between any two versions (in the URL) and every version, newest first.
 */
export const PromptPage = detailPage('name', usePrompt, 'the prompt', {
  line: (p) => (
    <>
      {p.latest_version === 0 ? 'no version yet' : `${p.latest_version} versions`} ·{' '}
      <LabelBadges labels={p.labels} />
    </>
  ),
  body: (p) =>
    p.versions.length === 0 ? (
      <p className="hint">
        No version yet: add one with <code>POST /v1/prompts/{p.name}/versions</code>.
      </p>
    ) : (
      <>
        <LabelsCard prompt={p} />
        <PromptExperiments name={p.name} />
        <VersionDiff versions={p.versions} />
        <section aria-labelledby="versions-heading">
          <h2 id="versions-heading">Versions, newest first</h2>
          {p.versions.map((v) => (
            <VersionCard key={v.version} prompt={p} version={v} />
          ))}
        </section>
      </>
    ),
});
