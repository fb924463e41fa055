/**
 * The table's stream consumer that purges what TTL-expired sessions leave behind. TTL
 * deletes only META (the one item with `expires_at`): an expired session's, or the tombstone
 * a delete that did not finish left (see @panto/aws deleteSession). This purges the session's
 * entry items, offloaded messages and exports. Only TTL's deletions of META items reach it; a
 * finished delete removes its tombstone itself, unseen here.
 */
import { LAMBDA } from './lambda';
import { bucket, table } from './storage';

table.subscribe(
  'PantoTtlCleanup',
  {
    handler: 'functions/src/handlers/ttl-cleanup.handler',
    ...LAMBDA,
    timeout: '5 minutes',
    memory: '512 MB',
    link: [table, bucket],
    // Deployed for real under `sst dev` too: expired sessions must be purged while your machine is off.
    dev: false,
  },
  {
    filters: [
      {
        eventName: ['REMOVE'],
        userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
        dynamodb: { Keys: { sk: { S: ['META'] } } },
      },
    ],
    transform: {
      // The handler names the record that failed; Lambda retries from there.
      eventSourceMapping: (args: aws.lambda.EventSourceMappingArgs) => {
        args.functionResponseTypes = ['ReportBatchItemFailures'];
      },
    },
  },
);
