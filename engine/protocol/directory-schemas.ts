/** listDirectories: the sub-folders of a folder, for the browser-mode path field's completion. */
import { z } from 'zod';
import { pathSchema } from './common-schemas.ts';

/** At most this many names are listed (sorted); `truncated` says when there were more. */
export const MAX_LISTED_DIRECTORIES = 500;

export const directoryListingSchema = z.strictObject({
  dir: pathSchema,
  /** Names (not paths) of the folders inside `dir`, hidden ones left out, sorted. */
  directories: z.array(z.string().min(1)).max(MAX_LISTED_DIRECTORIES),
  truncated: z.boolean(),
});
