// The first step of `npm test`: the build and the structure check (`npm run lint`: dependency-cruiser
// and typescript-eslint) side by side. They need nothing from each other (the linters read the
// sources, never dist/), so on two cores this saves the shorter of the two (~20 s of ~48 s). Both run
// to the end, each with its own output; either one failing fails the step.
const { spawn } = require('node:child_process');

function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: 'inherit' });
    child.on('error', (err) => { console.error(`npm run ${script}: ${err.message}`); resolve(1); });
    child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

Promise.all([run('build'), run('lint')]).then(([build, lint]) => {
  if (build !== 0) console.error(`npm test: the build failed (exit ${build})`);
  if (lint !== 0) console.error(`npm test: the structure check failed (exit ${lint})`);
  process.exitCode = build !== 0 ? build : lint;
});
