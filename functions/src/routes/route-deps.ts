/** What a route module is given. */
import type { A2ASettings } from '../a2a-settings.js';
import type { OfferedModels } from '../agent/offered-models.js';
import type { ProviderResolver } from '../agent/provider-resolver.js';
import type { Idempotent } from '../http/idempotency.js';
import type { ServiceLimits } from '../config.js';
import type { HttpError } from '../errors.js';
import type { SessionService } from '../services/session-service.js';

/** The session service's parts (`admin`, `tree`, `transfer`, `turns`), and what the routes share besides. */
export interface RouteDeps extends Pick<SessionService, 'admin' | 'tree' | 'transfer' | 'turns' | 'usage'> {
  providers: ProviderResolver;
  limits: ServiceLimits;
  /** Logs a failure that does not reach the caller as a status: an outage in one line, a defect with its cause. */
  report(failure: HttpError, what: string, error: unknown): void;
  /** Logs a backend outage in one short line. Must not throw. */
  logOutage(message: string): void;
  /** Runs a write at most once per `Idempotency-Key` (see app/idempotency.ts). */
  idempotent: Idempotent;
  /** What `GET /models` answers. Must not throw once the app serves (the configuration was checked at start). */
  models(): OfferedModels;
  /** Where the A2A interface is and whose tokens it takes (the Agent Card's); see `AppDeps.a2a`. */
  a2a: A2ASettings;
}
