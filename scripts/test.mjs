// Runs the tap suite (compiled tests in dist/test). Prints one line per test file as it finishes,
// the whole TAP text of every failure, and closes with one plain line, "N passed, N failed", that
// CI and humans can read. The exit code is tap's own; the full TAP output is kept in .tap-output.log.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const child = spawn('npx', ['tap', '--reporter=tap', ...process.argv.slice(2)], { stdio: ['ignore', 'pipe', 'inherit'] });
const lines = [];
let partial = '';
child.stdout.on('data', (chunk) => {
  partial += chunk.toString('utf8');
  let nl;
  while ((nl = partial.indexOf('\n')) >= 0) {
    const line = partial.slice(0, nl);
    partial = partial.slice(nl + 1);
    lines.push(line);
    // Top-level lines are one per test file (plus the plan and the summary).
    if (/^(ok|not ok) \d+ /.test(line)) console.log(line);
  }
});
child.on('close', (code, signal) => {
  if (partial) lines.push(partial);
  writeFileSync('.tap-output.log', lines.join('\n'));
  const failures = [];
  lines.forEach((line, i) => {
    if (/^\s*not ok /.test(line)) failures.push(lines.slice(i, i + 40).join('\n'));
  });
  if (failures.length) console.log(`\nFAILURES:\n${failures.join('\n---\n')}`);
  const summary = lines.map((l) => /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(l)).filter(Boolean).pop();
  if (summary) {
    const passed = Number(summary[2]);
    const failed = summary[3] !== undefined ? Number(summary[3]) : Number(summary[1]) - passed;
    console.log(`tests: ${passed} passed, ${failed} failed`);
  } else {
    console.log('tests: no summary from tap (see .tap-output.log)');
  }
  process.exit(code ?? (signal ? 1 : 0));
});
