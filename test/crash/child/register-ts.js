// Lets `node -r ./register-ts.js entry.ts` run the TypeScript sources directly, so the crash test's
// child process does not depend on a full `npm run build` (noEmitOnError makes one broken file
// anywhere block the whole dist/). Each file is transpiled alone (no type check; `npm run build`
// and the typecheck cover that) and cached on disk by content hash, so the 20+ restarts of the
// crash test pay the transpile cost once.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const crypto = require('node:crypto');
const ts = require('typescript');

const cacheDir = path.join(os.tmpdir(), `tradebot-ts-cache-${ts.version}`);
fs.mkdirSync(cacheDir, { recursive: true });
const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false };

require.extensions['.ts'] = function compileTs(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha1').update(`${filename}\0${source}`).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    output = ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
    const tmp = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, output);
    fs.renameSync(tmp, cached); // atomic: a child killed mid-write never leaves half a file
  }
  module._compile(output, filename);
};
