// One timed JSON POST for the benchmarks that compare ctxproxy with a direct
// call and other proxies: the whole answer is read, and the time to its first
// chunk and to its end are measured from the same start.

import http from 'node:http';

export interface Timing {
  totalMs: number;
  firstChunkMs: number;
}

/** Resolves once the answer has ended; an answer other than 200 rejects, naming it (and its body, for a bench run's log). */
export function timedPost(
  agent: http.Agent,
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstChunkMs = Number.NaN;
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        let refusal = '';
        response.setEncoding('utf8');
        response.on('data', (part: string) => {
          if (Number.isNaN(firstChunkMs)) firstChunkMs = performance.now() - started;
          if (response.statusCode !== 200) refusal += part;
        });
        response.on('end', () => {
          if (response.statusCode !== 200) reject(new Error(`${url} answered ${response.statusCode}: ${refusal}`));
          else resolve({ totalMs: performance.now() - started, firstChunkMs });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
