import type { Context } from '../../context.ts';
import type { ApiKeyDeps } from '../../http/api-key-auth.ts';
import type { Plane } from '../../http/app-types.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import type { SessionDeps } from '../../http/session-auth.ts';
import { useSessionOrSecretKey } from '../../http/session-or-key-auth.ts';
import * as createDataset from './create-dataset.ts';
import * as deleteItem from './delete-item.ts';
import * as getDataset from './get-dataset.ts';
import * as listDatasets from './list-datasets.ts';
import * as listItems from './list-items.ts';
import * as uploadItems from './upload-items.ts';

/** What the datasets plane's hook and routes use. */
export type DatasetDeps = SessionDeps & ApiKeyDeps & Pick<Context, 'db' | 'clock' | 'config'>;

/** The upload reads its body as text in three formats, so it gets its own scope and parsers. */
const uploadScope: Plane<DatasetDeps> = async (app, { ctx }) => uploadItems.register(app, ctx);

/**
 * The datasets plane: offline-evaluation datasets of the caller's org, behind a dashboard
 * session of any role or the org's secret key (a CI job); the org comes from the credential.
 */
export const datasetRoutes: Plane<DatasetDeps> = async (app, { ctx }) => {
  useSessionOrSecretKey(app, ctx);
  registerRoutes(app, ctx, [listDatasets, createDataset, getDataset, listItems, deleteItem]);
  await app.register(uploadScope, { ctx });
};
