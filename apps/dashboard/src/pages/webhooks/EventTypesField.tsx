import { ALL_EVENT_TYPES, EVENT_TYPES } from './event-types.ts';
import type { EventType } from './queries.ts';

/**
 * The event types as checkboxes. None ticked sends every type (the server's default for an
 * empty list), and the legend says so.
 */
export function EventTypesField({
  value,
  onChange,
}: {
  value: EventType[];
  onChange: (types: EventType[]) => void;
}) {
  const toggle = (t: EventType, on: boolean) =>
    onChange(
      on
        ? ALL_EVENT_TYPES.filter((x) => x === t || value.includes(x))
        : value.filter((x) => x !== t),
    );
  return (
    <fieldset className="event-types">
      <legend>Event types (none ticked: every type)</legend>
      {ALL_EVENT_TYPES.map((t) => (
        <label key={t} className="choice">
          <input
            type="checkbox"
            checked={value.includes(t)}
            onChange={(e) => toggle(t, e.target.checked)}
          />
          <code>{t}</code> <span className="hint">{EVENT_TYPES[t]}</span>
        </label>
      ))}
    </fieldset>
  );
}
