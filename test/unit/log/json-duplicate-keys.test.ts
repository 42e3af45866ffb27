import { duplicateKeys, linesWithDuplicateKeys } from '../../helpers/json-duplicate-keys';

test('finds keys written twice in one object, at any depth, and nothing in clean JSON', () => {
  expect(duplicateKeys('{"level":"info","time":"t","msg":"m","time":1}')).toEqual(['time']);
  expect(duplicateKeys('{"a":{"b":1,"b":2},"c":[{"d":1,"d":"x\\"y"}],"e":"{\\"e\\":1}"}')).toEqual(['a.b', 'c[0].d']);
  expect(duplicateKeys('{"a":1,"b":{"a":2},"c":[1,2,{"a":[]}],"d":null,"e":true,"f":-1.5e3,"g":"}"}')).toEqual([]);
  expect(linesWithDuplicateKeys('{"x":1}\nnot json\n{"x":1,"x":2}\n')).toEqual(['x in {"x":1,"x":2}']);
});
