import { useQuery } from '@tanstack/react-query';
import { api, type Experiment, ok, type Results } from '../../api/client.ts';
import { experimentKeys } from '../experiments/queries.ts';

type Share = NonNullable<Results['targeting']>;

/**
 * The share of users the experiment's targeting excluded over the run's window, as the client
 * libraries report it (an excluded user sends no exposure, so no event counts them). Only for
 * an experiment with targeting; the default view's summary does not carry it, so the run is
 * read from the results route (the same request a named run makes).
 */
export function TargetingShare({ experiment, run }: { experiment: Experiment; run: Results }) {
  const targeted = experiment.targeting !== undefined;
  const served = useQuery({
    enabled: targeted && run.targeting === undefined,
    queryKey: experimentKeys.results(experiment.id, run.computed_for),
    queryFn: () =>
      ok(
        api.GET('/v1/experiments/{id}/results', {
          params: { path: { id: experiment.id }, query: { day: run.computed_for } },
        }),
      ),
  });
  const share = run.targeting ?? (served.data as Results | undefined)?.targeting;
  if (!targeted || share === undefined) return null;
  return (
    <p className="hint" data-testid="targeting-share">
      {shareText(share)}
    </p>
  );
}

const count = (n: number) => n.toLocaleString('en-US');

/** "Targeting excluded 37 % of the users who reached it (client-reported): …". */
export function shareText(share: Share): string {
  if (share.excluded_share === null)
    return 'Targeting: no client has reported users reaching it in this run’s window yet (client-reported).';
  const percent = Math.round(share.excluded_share * 100);
  const days = share.days === 1 ? '1 day' : `${share.days} days`;
  return `Targeting excluded ${percent} % of the users who reached it (client-reported): ${count(share.excluded)} excluded, ${count(share.matched)} matched, over ${days}.`;
}
