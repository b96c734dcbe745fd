#!/usr/bin/env node
// The `arbiter` command. Runs the TypeScript sources through tsx, so there is no build step
// that could go stale.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
