/**
 * zod compiles fast paths with `new Function` unless told not to; under the studio's CSP (no
 * 'unsafe-eval') even its probe logs a CSP violation. Jitless mode avoids both. Imported first.
 */
import { z } from 'zod';

z.config({ jitless: true });
