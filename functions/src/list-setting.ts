/** How a setting that lists things is read, by the functions (config.ts) and the deployment (infra/, through deployment.ts) alike. */

/** A comma-separated setting as its non-empty, trimmed items. */
export function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
