import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../../api/client.ts';
import { signInHref } from '../../auth/identity-provider.ts';
import { setSession } from '../../auth/session.ts';
import { Loading, ProblemView } from '../../components/states.tsx';

/** Development sessions exist only where the server documents its development sign-in route. */
function useDevSessionsAllowed() {
  return useQuery({
    queryKey: ['dev-sessions'],
    queryFn: async () => {
      const doc = (await ok(api.GET('/v1/openapi.json'))) as unknown as {
        paths?: Record<string, unknown>;
      };
      return Boolean(doc.paths?.['/v1/dev/session']);
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function SignInPage() {
  const allowed = useDevSessionsAllowed();
  const providerHref = signInHref();
  return (
    <main className="sign-in">
      <h1>Sign in to Arbiter</h1>
      {providerHref ? (
        <p>
          <a className="button" href={providerHref}>
            Sign in with your identity provider
          </a>
        </p>
      ) : null}
      {allowed.isPending ? <Loading what="sign-in options" /> : null}
      {allowed.error ? <ProblemView error={allowed.error} /> : null}
      {allowed.data ? <DevSignInForm /> : null}
      {allowed.data === false && !providerHref ? (
        <p>
          This server takes sessions from its identity provider only. Ask your administrator for the
          sign-in address.
        </p>
      ) : null}
    </main>
  );
}

type Role = 'member' | 'admin' | 'owner';

/**
 * What a link may fill in: `arbiter demo` prints its dashboard pages with `?email=…&org=…&role=…`,
 * so opening one offers the demo's own sign-in. Nothing is submitted by itself.
 */
function linkedSignIn(): { email: string; org: string; role: Role } {
  const q = new URLSearchParams(window.location.search);
  const role = q.get('role');
  return {
    email: q.get('email') ?? '',
    org: q.get('org') ?? '',
    role: role === 'member' || role === 'owner' ? role : 'admin',
  };
}

function DevSignInForm() {
  const [linked] = useState(linkedSignIn);
  const [email, setEmail] = useState(linked.email);
  const [org, setOrg] = useState(linked.org);
  const [role, setRole] = useState<Role>(linked.role);
  const signIn = useMutation({
    mutationFn: () => ok(api.POST('/v1/dev/session', { body: { email, org, role } })),
    onSuccess: (data) => setSession(data.token),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate();
  };
  return (
    <form onSubmit={submit} className="card form" aria-label="Development sign-in">
      <p className="hint">
        Development mode: signs into the same org as <code>arbiter token --org &lt;name&gt;</code>.{' '}
        {linked.org ? (
          'Filled in from the link you opened.'
        ) : (
          <>
            After <code>arbiter demo</code>, use what it printed: Email demo@example.com,
            Organization arbiter-demo, Role admin.
          </>
        )}
      </p>
      <label>
        Email
        <input
          type="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          autoComplete="email"
        />
      </label>
      <label>
        Organization
        <input required value={org} onChange={(e) => setOrg(e.target.value)} />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          <option value="member">member</option>
          <option value="admin">admin</option>
          <option value="owner">owner</option>
        </select>
      </label>
      <button type="submit" disabled={signIn.isPending}>
        Sign in
      </button>
      {signIn.error ? <ProblemView error={signIn.error} /> : null}
    </form>
  );
}
