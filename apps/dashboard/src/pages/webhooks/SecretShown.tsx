/** A signing secret as the server answers it once: shown now, never again. */
export function SecretShown({ secret, what }: { secret: string; what: string }) {
  return (
    <p className="secret" role="status">
      {what}, shown once — copy it now: <code data-testid="webhook-secret">{secret}</code>
    </p>
  );
}
