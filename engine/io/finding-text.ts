/**
 * Wording shared by the pair and base compatibility findings (pair-report.ts, base-report.ts), so
 * "1 tensor differs" and "3 tensors differ" read right everywhere a count leads a message.
 */

/** `count` followed by the singular or plural phrase (the phrase may carry its verb: "tensor is"). */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
