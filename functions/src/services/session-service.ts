/**
 * What the HTTP routes do, without HTTP: every call rebuilds what it needs from DynamoDB
 * (take or open the store, load the conversation, build an agent). The one thing kept
 * between requests is the `SessionCache`: a warm process reads only what is new.
 *
 * The service is four parts on one `SessionContext`: a session's life (`admin`), its
 * tree (`tree`), its copies (`transfer`: export, import, fork) and its turns (`turns`, where
 * a turn's requests are counted).
 */
import { type AdminService, adminService } from './admin-service.js';
import { sessionContext, type SessionServiceDeps } from './session-context.js';
import { type TransferService, transferService } from './transfer-service.js';
import { type TreeService, treeService } from './tree-service.js';
import { type TurnService, turnService } from './turn-service.js';
import type { UsageLedger } from './usage-ledger.js';

export class SessionService {
  /** Create, list, read, change and delete sessions. */
  readonly admin: AdminService;
  /** The log and its branches. */
  readonly tree: TreeService;
  /** Export, import, fork. */
  readonly transfer: TransferService;
  /** Turns and compactions: run, stop, follow. */
  readonly turns: TurnService;
  /** The owners' usage ledger (`GET /usage`). */
  readonly usage: UsageLedger;

  constructor(deps: SessionServiceDeps) {
    const context = sessionContext(deps);
    this.admin = adminService(context);
    this.tree = treeService(context);
    this.transfer = transferService(context);
    this.turns = turnService(context);
    this.usage = context.usage;
  }
}
