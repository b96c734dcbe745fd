import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { isProblem } from './api/problem.ts';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Pages mounting together share one answer instead of each refetching it.
      staleTime: 2_000,
      // A problem from the server (4xx) is an answer; retry only what may be transient.
      retry: (failures, error) =>
        failures < 3 && (!isProblem(error) || error.status >= 500 || error.status === 0),
    },
  },
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
