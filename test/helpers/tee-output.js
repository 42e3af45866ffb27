// Preloaded into every node process the test run starts (globalSetup puts `--require <this file>`
// in NODE_OPTIONS): copies the process's stdout and stderr into a file of the run's capture
// directory ($TRADEBOT_TEST_LOG_DIR), which the globalTeardown scans for secrets. This is what makes
// the secret scan cover the whole suite (daemons, CLIs, simulators, crash children, pm2's processes)
// without each test having to remember to capture: any node child that inherits the environment
// is covered. Output is unchanged, only copied. Plain JavaScript: it runs before any TS hook.
//
// Two paths lead to fd 1/2 and both are copied: process.stdout/stderr.write (console, CLIs) and
// fs.write/fs.writeSync on the descriptor itself (pino writes through sonic-boom that way). While a
// stream write runs, the fs-level copy is off, so a stream that ends in fs.writeSync is copied once.
'use strict';

const dir = process.env.TRADEBOT_TEST_LOG_DIR;
const { isMainThread } = require('node:worker_threads');

// Worker threads print through their parent's streams, which are already copied.
if (dir && isMainThread) {
  const fs = require('node:fs');
  const path = require('node:path');
  const script = path.basename(process.argv[1] || 'node').replace(/[^A-Za-z0-9._-]/g, '_');
  let fd;
  try {
    fd = fs.openSync(path.join(dir, `${Date.now()}-${process.pid}-${script}.log`), 'a');
  } catch {
    fd = undefined; // capture directory gone (run over): leave the process alone
  }
  if (fd !== undefined) {
    const writeSync = fs.writeSync;
    const copy = (data, encoding, bytes) => {
      try {
        const buf = typeof data === 'string' ? Buffer.from(data, typeof encoding === 'string' ? encoding : 'utf8') : data;
        if (!buf || typeof buf.length !== 'number') return;
        const view = ArrayBuffer.isView(buf) ? Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength) : buf;
        writeSync.call(fs, fd, typeof bytes === 'number' ? view.subarray(0, bytes) : view);
      } catch {
        // A full disk must not change the behaviour of the process under test.
      }
    };
    const isStdio = (target) => target === 1 || target === 2;
    let inStreamWrite = false;

    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write;
      stream.write = function teeWrite(chunk, encoding) {
        copy(chunk, encoding);
        inStreamWrite = true;
        try {
          return write.apply(this, arguments);
        } finally {
          inStreamWrite = false;
        }
      };
    }

    fs.writeSync = function teeWriteSync(target, data, ...rest) {
      const n = writeSync.call(this, target, data, ...rest);
      if (isStdio(target) && !inStreamWrite) copy(data, typeof rest[0] === 'string' ? rest[0] : rest[1], n);
      return n;
    };
    const write = fs.write;
    fs.write = function teeWrite(target, data, ...rest) {
      if (!isStdio(target) || inStreamWrite) return write.call(this, target, data, ...rest);
      const last = rest.length - 1;
      const callback = rest[last];
      if (typeof callback !== 'function') return write.call(this, target, data, ...rest);
      const encoding = typeof rest[0] === 'string' ? rest[0] : rest[1];
      rest[last] = function teeDone(err, written) {
        if (!err) copy(data, typeof encoding === 'string' ? encoding : undefined, written);
        return callback.apply(this, arguments);
      };
      return write.call(this, target, data, ...rest);
    };
  }
}
