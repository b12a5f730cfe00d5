// SPDX-License-Identifier: Apache-2.0
// What the Node tests of `ocml serve` share: starting ocml-serve on a free port, and what a
// message says.
import { spawn } from 'node:child_process';
import path from 'node:path';

// Starts BUILD/ocml-serve with `args` (plus --port 0) and resolves to {server, port} once its
// start-up line names the port.
export async function startServe(build, args) {
  const server = spawn(path.join(build, 'ocml-serve'), [...args, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    server.stderr.on('data', (b) => {
      log += b.toString();
      const m = log.match(/http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) resolve(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`ocml-serve exited (${code}): ${log}`)));
  });
  return { server, port };
}

// What an OpenAI message says, to compare two of them: its content and reasoning (empty as
// none) and each call's name and parsed arguments.
export function meaningOf(m) {
  const text = (v) => (v === undefined || v === null || v === '' ? null : v);
  return {
    content: text(m.content),
    reasoning: text(m.reasoning_content),
    calls: (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
  };
}
