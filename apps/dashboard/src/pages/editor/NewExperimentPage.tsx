import { useSearchParams } from 'react-router';
import { ProblemView, QueryView } from '../../components/states.tsx';
import { draftFromPrompt } from '../prompts/experiment-draft.ts';
import { usePrompt } from '../prompts/queries.ts';
import { ExperimentEditor } from './ExperimentEditor.tsx';

/**
 * `/experiments/new`, blank; with `?prompt=NAME&version=N` (from a prompt version's page),
 * prefilled with that version against the prompt's production version.
 */
export function NewExperimentPage() {
  const [params] = useSearchParams();
  const prompt = params.get('prompt');
  return (
    <section>
      <h1>New experiment</h1>
      {prompt === null ? (
        <ExperimentEditor />
      ) : (
        <FromPrompt name={prompt} version={Number(params.get('version'))} />
      )}
    </section>
  );
}

function FromPrompt({ name, version }: { name: string; version: number }) {
  const prompt = usePrompt(name);
  return (
    <QueryView query={prompt} what="the prompt">
      {(p) => {
        const draft = draftFromPrompt(p, version);
        if (typeof draft === 'string') return <ProblemView error={new Error(draft)} />;
        return (
          <>
            <p className="hint">
              Control serves production’s version, treatment v{version}; add the metrics that
              decide.
            </p>
            <ExperimentEditor initial={draft} />
          </>
        );
      }}
    </QueryView>
  );
}
