// Runs wrk (Debian's) against a URL and reads its summary: requests per second, latency percentiles, errors.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx3xx: number;
  socketErrors: number;
  requests: number;
  /** What a script made with `reportFailures` saw of each answer that was not 2xx/3xx: status, type, body's start. */
  failures: string[];
}

export interface WrkOptions {
  connections?: number;
  threads?: number;
  seconds?: number;
  /** A Lua script for wrk (POST bodies, several paths). */
  script?: string;
  headers?: Record<string, string>;
  /** Run wrk at this niceness (19: the lowest priority), so that a load generator sharing the server's cores yields them. */
  nice?: number;
  /** Run wrk on this CPU only (taskset), so that it never shares the server's core. */
  cpu?: number;
}

function ms(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

export function wrk(url: string, options: WrkOptions, scratch: string): Promise<WrkResult> {
  const args = [
    '-t',
    String(options.threads ?? 2),
    '-c',
    String(options.connections ?? 50),
    '-d',
    `${options.seconds ?? 10}s`,
    '--latency',
  ];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}: ${v}`);
  if (options.script) {
    const file = join(scratch, `wrk-${Math.random().toString(36).slice(2)}.lua`);
    writeFileSync(file, options.script);
    args.push('-s', file);
  }
  args.push(url);
  return new Promise((resolve, reject) => {
    const [command, argv] =
      options.cpu !== undefined
        ? ['taskset', ['-c', String(options.cpu), 'wrk', ...args]]
        : options.nice === undefined
          ? ['wrk', args]
          : ['nice', ['-n', String(options.nice), 'wrk', ...args]];
    execFile(command, argv, { timeout: ((options.seconds ?? 10) + 30) * 1000 }, (error, stdout) => {
      if (error) return reject(error);
      const lat = (p: string) => {
        const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)`, 'm').exec(stdout);
        return m ? ms(m[1] ?? '0', m[2] ?? 'ms') : NaN;
      };
      const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
      resolve({
        rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN),
        p50: lat('50'),
        p99: lat('99'),
        non2xx3xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
        socketErrors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
        requests: Number(/\b(\d+) requests in/.exec(stdout)?.[1] ?? 0),
        failures: [...stdout.matchAll(/^failure: (.*)$/gm)].map((m) => m[1] ?? ''),
      });
    });
  });
}

/** A wrk Lua script that cycles through requests (method, path, headers, body). */
export function cycleScript(
  requests: { method?: string; path: string; headers?: Record<string, string>; body?: string }[],
  options: { reportFailures?: boolean } = {},
): string {
  const lua = (s: string) => JSON.stringify(s);
  const entries = requests
    .map((r) => {
      // A script's own header table replaces wrk's defaults, Host included: HTTP/1.1 needs it.
      const headers = Object.entries({ Host: 'localhost', ...r.headers })
        .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
        .join(', ');
      return `  wrk.format(${lua(r.method ?? 'GET')}, ${lua(r.path)}, { ${headers} }${r.body ? `, ${lua(r.body)}` : ''})`;
    })
    .join(',\n');
  const cycle = `local requests = {\n${entries}\n}\nlocal i = 0\nrequest = function()\n  i = i % #requests + 1\n  return requests[i]\nend\n`;
  if (!options.reportFailures) return cycle;
  // Each answer that is not 2xx/3xx is written out as it comes (the first 20 of each thread): its status and headers,
  // which tell what refused it. (A script that also keeps state for done() made wrk send a different load: four times
  // the requests a second.)
  return `${cycle}local reported = 0
response = function(status, headers, body)
  if status >= 400 and reported < 20 then
    reported = reported + 1
    local said = ""
    for name, value in pairs(headers) do said = said .. name .. "=" .. value .. "; " end
    io.write("failure: " .. status .. " " .. said .. "\\n")
  end
end
`;
}
