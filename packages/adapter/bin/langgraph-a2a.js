#!/usr/bin/env node
// Loads TypeScript on the fly (tsx), so `serve` accepts .ts graph modules as they are.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
