import type { FastifyRequest } from 'fastify';
import { type Static, type TObject, type TSchema, type TString, Type } from 'typebox';
import type { Database } from '../db/connect.ts';
import type { Caller } from '../domain/identity/identity.ts';
import type { OrgStateCache } from '../domain/org-state-cache.ts';
import { Text } from '../schemas/text.ts';
import type { App } from './app-types.ts';
import { created } from './created.ts';
import { problemResponses } from './responses.ts';
import { callerOf } from './session-auth.ts';

/** The path of a row addressed by its id or its name (or key). */
export const IdOrNameParams = Type.Object({ id: Text({ maxLength: 200 }) });

/** What every read of a session plane's org-owned rows declares of itself. */
interface OrgRead<Item extends TSchema> {
  url: string;
  tags: string[];
  summary: string;
  /** The schema of one row as answered. */
  item: Item;
}

/** GET `url`: every row of the caller's org, as `list` orders them. */
export function registerOrgList<Item extends TSchema>(
  app: App,
  db: Database,
  route: OrgRead<Item> & { list(db: Database, orgId: string): Promise<Static<Item>[]> },
): void {
  app.get(
    route.url,
    {
      schema: {
        tags: route.tags,
        summary: route.summary,
        response: { 200: Type.Array(route.item), ...problemResponses(401, 403) },
      },
    },
    async (request) => route.list(db, callerOf(request).orgId),
  );
}

/** GET `url` with an `:id`: one row of the caller's org (404 when the org has none by it). */
export function registerOrgGet<Item extends TSchema>(
  app: App,
  db: Database,
  route: OrgRead<Item> & {
    params: TObject<{ id: TString }>;
    get(db: Database, orgId: string, id: string): Promise<Static<Item>>;
  },
): void {
  // Widened: the reply type of a generic schema is left unresolved; `get` is typed by `Item`.
  const item: TSchema = route.item;
  app.get(
    route.url,
    {
      schema: {
        tags: route.tags,
        summary: route.summary,
        params: route.params,
        response: { 200: item, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => route.get(db, callerOf(request).orgId, request.params.id),
  );
}

/**
 * POST `url`: creates a row of the caller's org that its served config reads, answered 201
 * with its address under `url`; the org's cached state is dropped.
 */
export function registerOrgCreate<Body extends TSchema, Item extends TSchema>(
  app: App,
  ctx: { orgState: OrgStateCache },
  route: OrgRead<Item> & {
    body: Body;
    /** The problem statuses the create answers. */
    problems: number[];
    create(caller: Caller, body: Static<Body>): Promise<Static<Item> & { id: string }>;
  },
): void {
  // Widened, as in registerOrgGet: `create` is typed by the schemas instead.
  const body: TSchema = route.body;
  const item: TSchema = route.item;
  app.post(
    route.url,
    {
      schema: {
        tags: route.tags,
        summary: route.summary,
        body,
        response: { 201: item, ...problemResponses(...route.problems) },
      },
    },
    async (request, reply) => {
      const row = await changeOrgConfig(ctx, request, (caller) =>
        route.create(caller, request.body as Static<Body>),
      );
      return created(reply, `${route.url}/${row.id}`, row);
    },
  );
}

/**
 * Runs a change the org's served config reads (an experiment, a saved group, a layer, a
 * holdout, a prompt label) as the session's caller, then drops the org's cached state so the
 * next config read sees it.
 */
export async function changeOrgConfig<T>(
  ctx: { orgState: OrgStateCache },
  request: FastifyRequest,
  change: (caller: Caller) => Promise<T>,
): Promise<T> {
  const caller = callerOf(request);
  const changed = await change(caller);
  ctx.orgState.invalidate(caller.orgId);
  return changed;
}
