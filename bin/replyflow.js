#!/usr/bin/env node
// The published entry: registers tsx so the CLI, and the bots it loads, run as TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
