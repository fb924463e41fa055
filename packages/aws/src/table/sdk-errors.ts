/**
 * Reading the AWS SDK's errors: the exception type an error is, and what a failed condition
 * or an `ALL_NEW` update hands back. Callers translate only what they understand (CONTRIBUTING.md, *Errors*).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** The `name` of an SDK error (its exception type), or undefined. */
export function sdkErrorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && typeof (error as { name?: unknown }).name === 'string' ? (error as { name: string }).name : undefined;
}

/** Whether `error` is DynamoDB's answer to a condition expression that did not hold. */
export function isConditionalCheckFailed(error: unknown): boolean {
  return sdkErrorName(error) === 'ConditionalCheckFailedException';
}

/** The item a failed condition returned (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`); undefined when there was none. */
export function conditionFailedItem(error: unknown): Record<string, AttributeValue> | undefined {
  return (error as { Item?: Record<string, AttributeValue> }).Item;
}

/** The item an UpdateItem with `ReturnValues: 'ALL_NEW'` returned (it always returns one). */
export function updatedItem(attributes: Record<string, AttributeValue> | undefined): Record<string, AttributeValue> {
  if (attributes === undefined) throw new TypeError('UpdateItem with ReturnValues ALL_NEW returned no attributes');
  return attributes;
}
