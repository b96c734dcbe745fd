import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../../api/client.ts';
import { ProblemView, QueryList } from '../../components/states.tsx';

const CATEGORIES = ['bug', 'idea', 'question', 'praise', 'other'] as const;

export function FeedbackPage() {
  const queryClient = useQueryClient();
  const [message, setMessage] = useState('');
  const [category, setCategory] = useState<(typeof CATEGORIES)[number]>('idea');
  const list = useQuery({ queryKey: ['feedback'], queryFn: () => ok(api.GET('/v1/feedback')) });
  const send = useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/feedback', { body: { message, category, page: window.location.pathname } })),
    onSuccess: () => {
      setMessage('');
      void queryClient.invalidateQueries({ queryKey: ['feedback'] });
    },
  });
  return (
    <section>
      <h1>Feedback</h1>
      <form
        className="card form"
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate();
        }}
      >
        <label>
          Category
          <select value={category} onChange={(e) => setCategory(e.target.value as typeof category)}>
            {CATEGORIES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label>
          Message
          <textarea rows={4} value={message} onChange={(e) => setMessage(e.target.value)} />
        </label>
        <button type="submit" disabled={send.isPending}>
          Send feedback
        </button>
        {send.isSuccess ? <p role="status">Thank you — sent.</p> : null}
        {send.error ? <ProblemView error={send.error} /> : null}
      </form>
      <QueryList query={list} what="feedback" empty="Your org has not sent feedback yet.">
        {(items) => (
          <ul className="feedback-list">
            {items.map((f) => (
              <li key={f.id}>
                <span className="badge">{f.category}</span> {f.message}{' '}
                <span className="hint">{new Date(f.created_at).toLocaleString()}</span>
              </li>
            ))}
          </ul>
        )}
      </QueryList>
    </section>
  );
}
