/** One Dockerfile instruction: keyword upper-cased, arguments as written (continuations joined). */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  /** Index of the build stage (FROM) it belongs to; -1 before the first FROM. */
  readonly stage: number;
}

/** Enough of the Dockerfile grammar to check ours: comments, `\` continuations, stages. */
export function parseDockerfile(text: string): Instruction[] {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (current === '' && /^\s*#/.test(line)) continue;
    if (/^\s*#/.test(line)) continue; // comment inside a continued instruction
    if (line.endsWith('\\')) {
      current += line.slice(0, -1) + ' ';
      continue;
    }
    current += line;
    if (current.trim() !== '') logical.push(current.trim());
    current = '';
  }
  let stage = -1;
  return logical.map((l) => {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(l) ?? [];
    if (keyword.toUpperCase() === 'FROM') stage += 1;
    return { keyword: keyword.toUpperCase(), args: args.trim(), stage };
  });
}

/** The JSON array of an exec-form instruction, or undefined for shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  const parsed: unknown = JSON.parse(args);
  return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? (parsed as string[]) : undefined;
}
