#!/usr/bin/env node
import { buildProgram } from './cli/program';

buildProgram(process.argv)
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
