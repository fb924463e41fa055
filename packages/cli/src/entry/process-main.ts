#!/usr/bin/env node
import { run } from './run-cli.js';

// A reader that went away (`panto -p … | head -1`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
// Leave through process.exit on SIGTERM / SIGHUP, so that commands the bash tool is running
// (and everything they started) are killed on the way out. Everything committed is on disk.
process.once('SIGTERM', () => process.exit(143));
process.once('SIGHUP', () => process.exit(129));
// The AWS SDK (Bedrock) warns on every start under Node 20 that its releases after early
// 2027 need Node 22: advice for whoever pins the SDK, not for someone running panto.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const code = await run({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});

// Leave once what was written has been flushed, even if a keep-alive socket or the
// paused stdin would hold the event loop open.
let pending = 2;
const done = () => {
  if (--pending === 0) process.exit(code);
};
process.stdout.write('', done);
process.stderr.write('', done);
