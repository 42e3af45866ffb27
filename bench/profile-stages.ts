/**
 * Charges every sample of a V8 CPU profile (.cpuprofile JSON, from `node --cpu-prof` or the
 * inspector's Profiler) to one named stage, so a bench can say where each millisecond went. A
 * stage rule sees the sample's whole stack (leaf first) and the first rule that claims it wins.
 */
export interface ProfileFrame {
  readonly functionName: string;
  readonly url: string;
}
interface ProfileNode { id: number; callFrame: ProfileFrame; children?: number[] }
export interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** A stage's name and whether a stack (leaf first) belongs to it. */
export type StageRule = readonly [string, (stack: readonly ProfileFrame[]) => boolean];

/** Microseconds per stage; samples no rule claims go to `rest`. */
export function stagesOf(profile: CpuProfile, rules: readonly StageRule[], rest: string): Map<string, number> {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const stageOfNode = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const stack: ProfileFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) stack.push((byId.get(cur) as ProfileNode).callFrame);
    const stage = rules.find(([, claims]) => claims(stack))?.[0] ?? rest;
    stageOfNode.set(id, stage);
    return stage;
  };
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    // The first delta runs from the profiler's start to the first sample (inside the inspector's own call).
    if (i === 0) return;
    const stage = classify(id);
    out.set(stage, (out.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

/** The innermost frame of the stack whose script URL matches (leaf first). */
export function innermost(stack: readonly ProfileFrame[], url: RegExp): ProfileFrame | undefined {
  return stack.find((f) => url.test(f.url));
}

/** Whether any frame of the stack is `name` (optionally in a script matching `url`). */
export function onStack(stack: readonly ProfileFrame[], name: string, url?: RegExp): boolean {
  return stack.some((f) => f.functionName === name && (url === undefined || url.test(f.url)));
}

export function isGc(stack: readonly ProfileFrame[]): boolean {
  return stack[0]?.functionName === '(garbage collector)';
}
