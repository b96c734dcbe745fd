import { Link } from 'react-router';
import type { Usage } from '../../api/client.ts';

/**
 * This month's model calls no price row priced, per model: they count no cost, so a team adds
 * the price and later calls are priced (stored calls keep no cost until re-priced).
 */
export function UnpricedCalls({ usage }: { usage: Usage }) {
  if (usage.unpriced_calls.length === 0) return null;
  return (
    <section className="card" aria-labelledby="unpriced-heading" data-testid="unpriced-calls">
      <h2 id="unpriced-heading">Model calls without a price</h2>
      <p>
        These calls sent tokens but no cost, and no price row matches their model, so they add
        nothing to cost metrics.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Calls this month</th>
            <th scope="col">Price</th>
          </tr>
        </thead>
        <tbody>
          {usage.unpriced_calls.map((u) => (
            <tr key={u.model}>
              <td>
                <code>{u.model}</code>
              </td>
              <td>{u.calls.toLocaleString()}</td>
              <td>
                <Link to={`/model-prices?model=${encodeURIComponent(u.model)}`}>
                  Add a price for {u.model}
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
