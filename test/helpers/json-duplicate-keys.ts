/**
 * Keys that appear twice in one JSON object of `text` (JSON.parse keeps the last one silently, so a
 * log line `{"time":..., "time":...}` would lose a value without anyone noticing). A small scanner
 * over the JSON grammar: strings, objects, arrays and literals; it assumes the text is valid JSON.
 */
export function duplicateKeys(text: string): string[] {
  const dups: string[] = [];
  let i = 0;
  const ws = (): void => { while (i < text.length && /\s/.test(text[i]!)) i++; };
  const str = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        ws();
        const key = str();
        if (seen.has(key)) dups.push(path === '' ? key : `${path}.${key}`);
        seen.add(key);
        ws();
        i++; // colon
        value(path === '' ? key : `${path}.${key}`);
        ws();
        if (text[i++] === '}') return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') { i++; return; }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    }
    if (c === '"') { str(); return; }
    while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
  };
  value('');
  return dups;
}

/** Every line of JSON-lines output that has a duplicate key, with the keys. */
export function linesWithDuplicateKeys(output: string): string[] {
  return output.split('\n').filter((l) => l.trim().startsWith('{')).flatMap((l) => {
    const dups = duplicateKeys(l);
    return dups.length === 0 ? [] : [`${dups.join(', ')} in ${l.slice(0, 200)}`];
  });
}
