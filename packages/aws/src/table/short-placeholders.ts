/**
 * The wire form of a transaction: every `#name` and `:value` placeholder of each item
 * renamed to the shortest free one (`#0`, `#1`…, `:0`, `:1`…). The expressions in
 * expressions.ts keep their readable placeholders; DynamoDB sees the same item with fewer
 * bytes — a META update names 15–20 attributes, each spelled out twice (in the expression and
 * in `ExpressionAttributeNames`), which was a third of a turn's request bytes. Placeholders
 * are per item, so each item is renamed on its own. Nothing that reads a failure looks at
 * placeholders (cancellation reasons are by item index, `ALL_OLD` items by attribute name),
 * so the readable input stays the one errors are judged against.
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';

type Expressions = {
  ConditionExpression?: string | undefined;
  UpdateExpression?: string | undefined;
  ExpressionAttributeNames?: Record<string, string> | undefined;
  ExpressionAttributeValues?: Record<string, AttributeValue> | undefined;
};

const PLACEHOLDER = /[#:][A-Za-z0-9_]+/g;

const ours = new WeakSet<object>();
const wired = new WeakSet<DynamoDBClient>();

/** Sends `input` as one `TransactWriteItems`, its placeholders shortened on the wire. */
export function sendTransaction(client: DynamoDBClient, input: TransactWriteItemsCommandInput): Promise<unknown> {
  if (!wired.has(client)) {
    wired.add(client);
    client.middlewareStack.add(
      (next) => (args) => (ours.has(args.input) ? next({ ...args, input: withShortPlaceholders(args.input as TransactWriteItemsCommandInput) }) : next(args)),
      {
        step: 'initialize',
        name: 'pantoShortPlaceholders',
      },
    );
  }
  ours.add(input);
  return client.send(new TransactWriteItemsCommand(input));
}

/** `input` with each item's placeholders shortened; `input` itself is not changed. */
export function withShortPlaceholders(input: TransactWriteItemsCommandInput): TransactWriteItemsCommandInput {
  return { ...input, TransactItems: input.TransactItems?.map(shortenItem) };
}

function shortenItem(item: TransactWriteItem): TransactWriteItem {
  if (item.Update) return { Update: { ...item.Update, ...shorten(item.Update) } };
  if (item.Put) return { Put: { ...item.Put, ...shorten(item.Put) } };
  if (item.Delete) return { Delete: { ...item.Delete, ...shorten(item.Delete) } };
  if (item.ConditionCheck) return { ConditionCheck: { ...item.ConditionCheck, ...shorten(item.ConditionCheck) } };
  return item;
}

interface Renaming {
  update: string | undefined;
  condition: string | undefined;
  renamed: Map<string, string>;
}

/**
 * The renamed expressions of an item and what each placeholder became, by its update and
 * then its condition expression (a few dozen constants; looked up without joining them, so
 * a write allocates no key).
 */
const renamings = new Map<string | undefined, Map<string | undefined, Renaming>>();
const RENAMINGS_KEPT = 512;

function renaming(update: string | undefined, condition: string | undefined): Renaming {
  let byCondition = renamings.get(update);
  let known = byCondition?.get(condition);
  if (known !== undefined) return known;
  const renamed = new Map<string, string>();
  let names = 0;
  let values = 0;
  const rename = (placeholder: string): string => {
    let short = renamed.get(placeholder);
    if (short === undefined) {
      short = placeholder.startsWith('#') ? `#${(names++).toString(36)}` : `:${(values++).toString(36)}`;
      renamed.set(placeholder, short);
    }
    return short;
  };
  known = { update: update?.replace(PLACEHOLDER, rename), condition: condition?.replace(PLACEHOLDER, rename), renamed };
  if (byCondition === undefined) {
    if (renamings.size >= RENAMINGS_KEPT) renamings.clear();
    byCondition = new Map();
    renamings.set(update, byCondition);
  }
  if (byCondition.size >= RENAMINGS_KEPT) byCondition.clear();
  byCondition.set(condition, known);
  return known;
}

/**
 * The renamed expressions and maps of one item (only the fields it has). A placeholder the
 * maps lack is renamed too, and DynamoDB refuses it as it would have the readable one.
 */
function shorten(part: Expressions): Expressions {
  const names = part.ExpressionAttributeNames;
  const values = part.ExpressionAttributeValues;
  if (names === undefined && values === undefined) return {};
  const { update, condition, renamed } = renaming(part.UpdateExpression, part.ConditionExpression);
  const out: Expressions = {};
  if (update !== undefined) out.UpdateExpression = update;
  if (condition !== undefined) out.ConditionExpression = condition;
  // An entry no expression uses keeps its key: DynamoDB refuses it, as it did the readable form.
  if (names !== undefined) out.ExpressionAttributeNames = renameKeys(names, renamed);
  if (values !== undefined) out.ExpressionAttributeValues = renameKeys(values, renamed);
  return out;
}

function renameKeys<T>(map: Record<string, T>, renamed: Map<string, string>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key in map) out[renamed.get(key) ?? key] = map[key]!;
  return out;
}
