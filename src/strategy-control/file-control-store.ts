import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { parsePromoted, parseRequest, type ControlReply, type ControlRequest, type PromotedVersion, type StrategyControlStore } from './control-store';
import { writeDurably } from '../store/durable-file';

/**
 * The control store as files in one directory (paper mode without Redis: the daemon and the CLI on
 * the same machine): `promoted.json` (written to a temp file, fsynced, renamed, the directory
 * fsynced, so a SIGKILL leaves the old or the new record, never half of one), `requests/<id>.json`
 * (the daemon reads and removes them), `replies/<id>.json`, `shadow.json`.
 */
export class FileStrategyControlStore implements StrategyControlStore {
  constructor(private readonly dir: string) {}

  readPromoted(): Promise<Record<string, PromotedVersion>> {
    const out: Record<string, PromotedVersion> = {};
    const all = readJson(path.join(this.dir, 'promoted.json'));
    if (all !== null && typeof all === 'object') {
      for (const [name, v] of Object.entries(all as Record<string, unknown>)) {
        const record = parsePromoted(JSON.stringify(v));
        if (record !== undefined) out[name] = record;
      }
    }
    return Promise.resolve(out);
  }

  async writePromoted(strategy: string, record: PromotedVersion): Promise<void> {
    const all = { ...await this.readPromoted(), [strategy]: record };
    writeDurably(path.join(this.dir, 'promoted.json'), JSON.stringify(all, null, 2));
  }

  putRequest(request: ControlRequest): Promise<void> {
    writeDurably(path.join(this.dir, 'requests', `${request.id}.json`), JSON.stringify(request));
    return Promise.resolve();
  }

  takeRequests(): Promise<ControlRequest[]> {
    const dir = path.join(this.dir, 'requests');
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
    } catch {
      return Promise.resolve([]);
    }
    const out: ControlRequest[] = [];
    for (const name of names) {
      const file = path.join(dir, name);
      const text = readText(file);
      try { unlinkSync(file); } catch { continue; } // another reader took it
      const request = text === undefined ? undefined : parseRequest(text);
      if (request !== undefined) out.push(request);
    }
    return Promise.resolve(out.sort((a, b) => a.atMs - b.atMs));
  }

  putReply(reply: ControlReply): Promise<void> {
    writeDurably(path.join(this.dir, 'replies', `${reply.id}.json`), JSON.stringify(reply));
    return Promise.resolve();
  }

  readReply(id: string): Promise<ControlReply | undefined> {
    const v = readJson(path.join(this.dir, 'replies', `${id}.json`));
    return Promise.resolve(v === null ? undefined : (v as ControlReply));
  }

  writeStatus(json: string): Promise<void> {
    writeDurably(path.join(this.dir, 'shadow.json'), json, false);
    return Promise.resolve();
  }

  readStatus(): Promise<string | undefined> {
    return Promise.resolve(readText(path.join(this.dir, 'shadow.json')));
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function readJson(file: string): unknown {
  const text = readText(file);
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
