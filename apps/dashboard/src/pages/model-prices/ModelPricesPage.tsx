import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, ok } from '../../api/client.ts';
import { Form } from '../../components/Form.tsx';
import { Empty, ProblemView, QueryView } from '../../components/states.tsx';

const today = () => new Date().toISOString().slice(0, 10);
const rate = (text: string) => (text.trim() === '' ? null : Number(text));

/** The org's own model prices, over the built-in table; a form adds or replaces one row. */
export function ModelPricesPage() {
  const list = useQuery({
    queryKey: ['model-prices'],
    queryFn: () => ok(api.GET('/v1/model-prices')),
  });
  return (
    <section>
      <h1>Model prices</h1>
      <p>
        Calls that send tokens but no cost are priced at ingest, in US dollars per million tokens,
        from your rows first, then the built-in table. A row prices calls from its day on; stored
        costs never change.
      </p>
      <PriceForm />
      <QueryView query={list} what="model prices">
        {(prices) =>
          prices.org.length === 0 ? (
            <Empty>Your org has no prices of its own; the built-in table prices its calls.</Empty>
          ) : (
            <ul>
              {prices.org.map((p) => (
                <li key={p.ref}>
                  <code>{p.pattern}</code> from {p.effective_from}: ${p.input_per_million} in, $
                  {p.output_per_million} out
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </section>
  );
}

type PriceFields = Record<
  'pattern' | 'effective_from' | 'input' | 'output' | 'cached' | 'reasoning',
  string
>;

/** PUT of the form's row; the list is read again after it. */
function useSavePrice(form: PriceFields) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/v1/model-prices', {
          body: {
            pattern: form.pattern,
            effective_from: form.effective_from,
            input_per_million: Number(form.input),
            output_per_million: Number(form.output),
            cached_input_per_million: rate(form.cached),
            reasoning_per_million: rate(form.reasoning),
          },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['model-prices'] }),
  });
}

/** One row: the model (from the link that led here), its day and its rates. */
function PriceForm() {
  const [params] = useSearchParams();
  const [form, setForm] = useState<PriceFields>({
    pattern: params.get('model') ?? '',
    effective_from: today(),
    input: '',
    output: '',
    cached: '',
    reasoning: '',
  });
  const save = useSavePrice(form);
  const field = (name: keyof typeof form, label: string, type = 'text') => (
    <label>
      {label}
      <input
        type={type}
        step={type === 'number' ? 'any' : undefined}
        value={form[name]}
        onChange={(e) => setForm({ ...form, [name]: e.target.value })}
      />
    </label>
  );
  return (
    <Form
      className="card form"
      label="Add a price"
      onSubmit={() => {
        save.mutate();
      }}
    >
      {field('pattern', 'Model')}
      {field('effective_from', 'From (UTC day)', 'date')}
      {field('input', 'Input per million', 'number')}
      {field('output', 'Output per million', 'number')}
      {field('cached', 'Cached input per million (optional)', 'number')}
      {field('reasoning', 'Reasoning per million (optional)', 'number')}
      <button type="submit" disabled={save.isPending}>
        Save price
      </button>
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      {save.error ? <ProblemView error={save.error} /> : null}
    </Form>
  );
}
