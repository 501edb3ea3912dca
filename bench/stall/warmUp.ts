// Small requests before the in-process measurements (run.ts, gaps.ts), as the
// outside block's warm-up does: the first requests of a process compile the
// pipeline's functions, the request schema's validators and the sources' code,
// and ask the upstream for the model's window. That is paid once per process,
// not per hostile request; BENCH_WARM=0 measures the cold server instead.

import http from 'node:http';
import { MODEL } from './shapes.ts';

export const WARM_REQUESTS = Number(process.env.BENCH_WARM ?? 12);

function chat(url: string, mode: string, question: string): Promise<void> {
  const body = JSON.stringify({ model: MODEL, stream: false, messages: [{ role: 'user', content: question }] });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/v1/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-ctx-mode': mode } },
      (response) => {
        response.resume();
        response.on('end', () => resolve());
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Questions that name none of the hostile files, in each mode the context shapes use. */
export async function warmUp(url: string): Promise<void> {
  const modes = ['off', 'quick', 'debug', 'deep', 'auto'];
  for (let i = 0; i < WARM_REQUESTS; i++)
    await chat(url, modes[i % modes.length] as string, `warm-up ${i}: what does this project do?`);
}
