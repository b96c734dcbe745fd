import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { tokenFromCallback } from '../../auth/identity-provider.ts';
import { setSession } from '../../auth/session.ts';
import { ProblemView } from '../../components/states.tsx';

/** Where the identity provider's sign-in page sends the browser back with `#token=<jwt>`. */
export function AuthCallback() {
  const navigate = useNavigate();
  const token = tokenFromCallback(window.location.hash);
  useEffect(() => {
    if (token) {
      setSession(token);
      navigate('/experiments', { replace: true });
    }
  }, [token, navigate]);
  if (token) return null;
  return (
    <ProblemView
      error={new Error('The identity provider did not hand over a session token (#token=…).')}
    />
  );
}
