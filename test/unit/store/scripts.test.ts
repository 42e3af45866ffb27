import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InvalidTransitionError, LeaseLostError, NotReadyError, StaleStateError, StoreUnavailableError,
} from '../../../src/domain/errors';
import { errorForLuaCode, findScriptsDir, LuaErrorCode } from '../../../src/store/scripts';

const root = join(__dirname, '..', '..', '..');

describe('Lua scripts', () => {
  test('one function maps every negative code to its error class, context kept', () => {
    const cases: [LuaErrorCode, new (...args: never[]) => Error][] = [
      [LuaErrorCode.StaleState, StaleStateError],
      [LuaErrorCode.LeaseLost, LeaseLostError],
      [LuaErrorCode.LeaseHeld, LeaseLostError],
      [LuaErrorCode.OrderNotFound, InvalidTransitionError],
      [LuaErrorCode.NonceAhead, NotReadyError],
    ];
    for (const [code, cls] of cases) {
      const err = errorForLuaCode(code, { clientOrderId: 'tb-1' });
      expect(err).toBeInstanceOf(cls);
      expect(err.context).toMatchObject({ clientOrderId: 'tb-1' });
    }
    expect(errorForLuaCode(-99)).toBeInstanceOf(StoreUnavailableError);
  });

  test('the scripts folder is found from src and from the compiled dist/src/store', () => {
    const expected = join(root, 'src', 'store', 'scripts');
    expect(findScriptsDir(join(root, 'src', 'store'))).toBe(expected);
    expect(findScriptsDir(join(root, 'dist', 'src', 'store'))).toBe(expected);
    expect(() => findScriptsDir(mkdtempSync(join(tmpdir(), 'tb-no-scripts-')))).toThrow(StoreUnavailableError);
  });

  test('every script header documents KEYS, ARGV and Returns, and its negative codes are in the enum', () => {
    const dir = findScriptsDir();
    const files = readdirSync(dir).filter((f) => f.endsWith('.lua'));
    expect(files.length).toBeGreaterThanOrEqual(7);
    const known = new Set(Object.values(LuaErrorCode).filter((v) => typeof v === 'number'));
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      const header = text.slice(0, text.indexOf(']]'));
      expect({ file, ok: /KEYS\[1\]/.test(header) && /Returns/.test(header) }).toEqual({ file, ok: true });
      for (const m of text.matchAll(/return \{(-\d+)/g)) expect(known.has(Number(m[1]))).toBe(true);
    }
  });
});
