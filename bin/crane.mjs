#!/usr/bin/env node
// Entry point of the `crane` command: registers the TypeScript loader, then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../engine/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
