import { z } from 'zod';

// The app's CSP allows no eval: zod's compiled parsers would probe `new Function`, and even a caught
// probe is reported as a CSP violation. Imported first by main.tsx, before any schema parses.
z.config({ jitless: true });
