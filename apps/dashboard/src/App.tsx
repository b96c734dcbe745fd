import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { useSessionToken } from './auth/session.ts';
import { Layout } from './components/Layout.tsx';
import { NotFound } from './components/NotFound.tsx';
import { HealthPage } from './pages/admin/HealthPage.tsx';
import { InboxPage } from './pages/admin/InboxPage.tsx';
import { OrgDetailPage } from './pages/admin/OrgDetailPage.tsx';
import { OrgsPage } from './pages/admin/OrgsPage.tsx';
import { OverviewPage } from './pages/admin/OverviewPage.tsx';
import { BillingPage } from './pages/billing/BillingPage.tsx';
import { DatasetPage } from './pages/datasets/DatasetPage.tsx';
import { DatasetsPage } from './pages/datasets/DatasetsPage.tsx';
import { NewExperimentPage } from './pages/editor/NewExperimentPage.tsx';
import { ExperimentPage } from './pages/experiment/ExperimentPage.tsx';
import { ExperimentsPage } from './pages/experiments/ExperimentsPage.tsx';
import { HoldoutPage } from './pages/holdouts/HoldoutPage.tsx';
import { HoldoutsPage } from './pages/holdouts/HoldoutsPage.tsx';
import { LayerPage } from './pages/layers/LayerPage.tsx';
import { LayersPage } from './pages/layers/LayersPage.tsx';
import { ModelPricesPage } from './pages/model-prices/ModelPricesPage.tsx';
import { AuditPage } from './pages/org/AuditPage.tsx';
import { FeedbackPage } from './pages/org/FeedbackPage.tsx';
import { KeysPage } from './pages/org/KeysPage.tsx';
import { UsagePage } from './pages/org/UsagePage.tsx';
import { PromptPage } from './pages/prompts/PromptPage.tsx';
import { PromptsPage } from './pages/prompts/PromptsPage.tsx';
import { AuthCallback } from './pages/sign-in/AuthCallback.tsx';
import { SignInPage } from './pages/sign-in/SignInPage.tsx';
import { WebhooksPage } from './pages/webhooks/WebhooksPage.tsx';

/** Every view is a link: the experiment, tab and run live in the URL. */
const signedIn = createBrowserRouter([
  {
    path: '/',
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/experiments" replace /> },
      { path: 'experiments', element: <ExperimentsPage /> },
      { path: 'experiments/new', element: <NewExperimentPage /> },
      { path: 'experiments/:id', element: <Navigate to="results" replace /> },
      { path: 'experiments/:id/:tab', element: <ExperimentPage /> },
      { path: 'experiments/:id/offline/:runId', element: <ExperimentPage offlineRun /> },
      { path: 'layers', element: <LayersPage /> },
      { path: 'layers/:id', element: <LayerPage /> },
      { path: 'holdouts', element: <HoldoutsPage /> },
      { path: 'holdouts/:id', element: <HoldoutPage /> },
      { path: 'datasets', element: <DatasetsPage /> },
      { path: 'datasets/:id', element: <DatasetPage /> },
      { path: 'prompts', element: <PromptsPage /> },
      { path: 'prompts/:name', element: <PromptPage /> },
      { path: 'keys', element: <KeysPage /> },
      { path: 'usage', element: <UsagePage /> },
      { path: 'model-prices', element: <ModelPricesPage /> },
      { path: 'audit', element: <AuditPage /> },
      { path: 'billing', element: <BillingPage /> },
      { path: 'feedback', element: <FeedbackPage /> },
      { path: 'webhooks', element: <WebhooksPage /> },
      { path: 'admin', element: <Navigate to="/admin/inbox" replace /> },
      { path: 'admin/inbox', element: <InboxPage /> },
      { path: 'admin/overview', element: <OverviewPage /> },
      { path: 'admin/orgs', element: <OrgsPage /> },
      { path: 'admin/orgs/:id', element: <OrgDetailPage /> },
      { path: 'admin/health', element: <HealthPage /> },
      { path: 'auth/callback', element: <Navigate to="/experiments" replace /> },
      { path: '*', element: <NotFound /> },
    ],
  },
]);

const signedOut = createBrowserRouter([
  { path: '/auth/callback', element: <AuthCallback /> },
  { path: '*', element: <SignInPage /> },
]);

export function App() {
  const token = useSessionToken();
  return <RouterProvider key={token ? 'in' : 'out'} router={token ? signedIn : signedOut} />;
}
