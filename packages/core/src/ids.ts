import { v7 as uuidv7 } from 'uuid';

/** Makes ids for sessions and entries. Inject a fixed one where output must be deterministic. */
export type IdGenerator = () => string;
/** Tells the time. Inject a frozen one where output must be deterministic. */
export type Clock = () => Date;

/** UUIDv7: time-ordered, so file names and keys sort by creation. */
export const newId: IdGenerator = () => uuidv7();
export const systemClock: Clock = () => new Date();
