import { userInfo } from 'node:os';
import type { Operator } from '../operator/operator-actions';

/** Who runs a CLI action, for the audit log: the login user (the CLI has no tokens). */
export function cliOperator(env: NodeJS.ProcessEnv): Operator {
  let user = env['USER'] ?? env['LOGNAME'];
  if (user === undefined) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return { who: `cli:${user}`, via: 'cli' };
}
