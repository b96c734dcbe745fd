import { useSearchParams } from 'react-router';
import type { OfflineRun, RunItemsSort } from '../../api/client.ts';
import { Choice } from '../../components/Choice.tsx';
import { Pager, useCursorPages } from '../../components/Pager.tsx';
import { Empty, QueryView } from '../../components/states.tsx';
import { type ItemsView, useRunItems } from './queries.ts';
import { RunItemCard } from './RunItemCard.tsx';

const SORTS: Array<{ value: RunItemsSort; label: string }> = [
  { value: 'regressions', label: 'Regressions first' },
  { value: 'improvements', label: 'Improvements first' },
  { value: 'item', label: 'By item id' },
];

/** The viewer's choices from the address; one the run does not have falls back to the first. */
function useItemChoices(run: OfflineRun) {
  const [params, setParams] = useSearchParams();
  const treatments = run.variants.filter((v) => v !== run.baseline);
  const scorers = run.scorers.map((s) => s.name);
  const pick = (name: string, allowed: readonly string[]) => {
    const value = params.get(name);
    return value !== null && allowed.includes(value) ? value : allowed[0];
  };
  const set = (name: string) => (value: string) =>
    setParams(
      (p) => {
        p.set(name, value);
        return p;
      },
      { replace: true },
    );
  return {
    treatments,
    scorers,
    treatment: pick('treatment', treatments),
    scorer: pick('scorer', scorers),
    sort: pick(
      'sort',
      SORTS.map((s) => s.value),
    ) as RunItemsSort,
    set,
  };
}

/**
 * The run's items, worst regression first by default: each with its input, the expected output
 * and every variant's outputs per repeat. Treatment, scorer and sort live in the address.
 */
export function ItemViewer({ run }: { run: OfflineRun }) {
  const { treatments, scorers, treatment, scorer, sort, set } = useItemChoices(run);
  const named = (values: string[]) => values.map((value) => ({ value, label: value }));
  return (
    <section aria-labelledby="items-heading">
      <h3 id="items-heading">Items</h3>
      <div className="row item-controls">
        <Choice
          label="Treatment"
          value={treatment}
          options={named(treatments)}
          onChange={set('treatment')}
        />
        <Choice label="Scorer" value={scorer} options={named(scorers)} onChange={set('scorer')} />
        <Choice label="Sort" value={sort} options={SORTS} onChange={set('sort')} />
      </div>
      {/* A new choice starts again at the first page. */}
      <ItemPages
        key={`${treatment}|${scorer}|${sort}`}
        run={run}
        view={{ treatment, scorer, sort }}
      />
    </section>
  );
}

function ItemPages({ run, view }: { run: OfflineRun; view: Omit<ItemsView, 'after'> }) {
  const pages = useCursorPages();
  const items = useRunItems(run.id, { ...view, after: pages.after });
  return (
    <QueryView query={items} what="items">
      {(page) => (
        <>
          {page.data.length === 0 ? <Empty>The run's dataset version has no items.</Empty> : null}
          <ol className="run-items" aria-label="Items of this page">
            {page.data.map((item) => (
              <li key={item.id}>
                <RunItemCard
                  item={item}
                  run={run}
                  scorer={page.scorer}
                  treatment={page.treatment}
                />
              </li>
            ))}
          </ol>
          <Pager label="Items" pages={pages} shown={page} busy={items.isPlaceholderData} />
        </>
      )}
    </QueryView>
  );
}
