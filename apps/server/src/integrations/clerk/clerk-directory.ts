import { type ClerkClient, createClerkClient } from '@clerk/backend';
import { isClerkAPIResponseError } from '@clerk/backend/errors';
import type { Config } from '../../config.ts';
import type { DirectoryOrg, IdentityDirectory } from '../../kernel/ports.ts';

/** Organizations fetched per page (the Backend API allows 1 to 500). */
const PAGE_SIZE = 100;
/** Clerk's `max_allowed_memberships` says "unlimited" with 0. */
const UNLIMITED = 0;

/** A failure of the Backend API as one sentence: its status and first error message. */
function failure(action: string, error: unknown): Error {
  if (isClerkAPIResponseError(error)) {
    const first = error.errors[0];
    const said = first ? `${first.code}: ${first.longMessage ?? first.message}` : error.message;
    return new Error(`${action}: the identity provider answered ${error.status} (${said})`);
  }
  return new Error(`${action}: ${error instanceof Error ? error.message : String(error)}`);
}

/** Seat caps through Clerk's own Backend SDK, at a configurable API URL. */
export class ClerkDirectory implements IdentityDirectory {
  private readonly client: ClerkClient;

  constructor(options: { secretKey: string; apiUrl: string }) {
    this.client = createClerkClient({
      secretKey: options.secretKey,
      apiUrl: options.apiUrl,
      // The SDK would otherwise report usage to Clerk from this server.
      telemetry: { disabled: true },
    });
  }

  async listOrgs(): Promise<DirectoryOrg[]> {
    const orgs: DirectoryOrg[] = [];
    for (let offset = 0; ; offset += PAGE_SIZE) {
      const page = await this.client.organizations
        .getOrganizationList({ limit: PAGE_SIZE, offset })
        .catch((error: unknown) => {
          throw failure('listing organizations', error);
        });
      for (const org of page.data) {
        const cap = org.maxAllowedMemberships;
        orgs.push({ externalId: org.id, seatCap: cap === UNLIMITED ? null : cap });
      }
      if (page.data.length < PAGE_SIZE || orgs.length >= page.totalCount) return orgs;
    }
  }

  async setSeatCap(externalId: string, seatCap: number | null): Promise<void> {
    await this.client.organizations
      .updateOrganization(externalId, { maxAllowedMemberships: seatCap ?? UNLIMITED })
      .catch((error: unknown) => {
        throw failure(`updating ${externalId}`, error);
      });
  }
}

/** The identity provider's directory; null without a Backend API secret key. */
export function createIdentityDirectory(config: Config): IdentityDirectory | null {
  if (config.clerkSecretKey === null) return null;
  return new ClerkDirectory({ secretKey: config.clerkSecretKey, apiUrl: config.clerkApiUrl });
}
