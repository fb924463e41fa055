/** The environment a setting is read from: `process.env`, or a test's. */
export type Env = { readonly [name: string]: string | undefined };
