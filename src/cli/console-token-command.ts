import type { Command } from 'commander';
import { mintToken, tokenSha256 } from '../console/token-book';

/**
 * `tradebot console-token [--name N] [--role R]`: a fresh console token and the config entry that
 * admits it (its SHA-256: the config never holds the token). The token is printed once, to stdout,
 * for the operator to keep in a password manager or a Secret.
 */
export function registerConsoleTokenCommand(program: Command): void {
  program
    .command('console-token')
    .description('mint a console token; prints it and the console.tokens entry (its SHA-256) for the config')
    .option('--name <name>', 'who holds it (the audit log shows this)', 'operator')
    .option('--role <role>', 'viewer or operator', 'operator')
    .action((opts: { name: string; role: string }) => {
      if (opts.role !== 'viewer' && opts.role !== 'operator') {
        process.stderr.write(`--role must be viewer or operator, got ${JSON.stringify(opts.role)}\n`);
        process.exitCode = 1;
        return;
      }
      if (!/^[A-Za-z0-9._@-]{1,64}$/.test(opts.name)) {
        process.stderr.write('--name must be 1-64 letters, digits or . _ @ -\n');
        process.exitCode = 1;
        return;
      }
      const token = mintToken();
      process.stdout.write(`token: ${token}\n\nconsole:\n  tokens:\n    - { name: ${opts.name}, role: ${opts.role}, sha256: ${tokenSha256(token)} }\n`);
    });
}
