// The sidecar as a process, as the tests start it: production's configuration, but for load shedding. A sidecar sheds
// costly requests (503) once its event loop lags MAX_EVENT_LOOP_DELAY_MS (100); on two cores shared with Chromium,
// builds and other suites, a test's sidecar lags for reasons not its own, and a suite that asks for a page would get a
// 503 it does not test. Shedding has its own test (test/http/limits.test.ts, 'load shed before it stalls'). Nor for
// the per-client request rate (below).
import { spawnSidecar, type SpawnOptions } from '../../scripts/sidecar-process.ts';

export function spawnTestSidecar(env: Record<string, string> = {}, options: SpawnOptions = {}) {
  return spawnSidecar({ MAX_EVENT_LOOP_DELAY_MS: '60000', ...TEST_CLIENT_RATE, ...env }, options);
}

/**
 * A suite asks from one address as fast as its server answers (the fuzzer, thousands of requests): the per-client rate
 * (REQUEST_RATE_PER_CLIENT) is not what it tests. The rate's own tests set theirs (test/http/limits.test.ts).
 */
const TEST_CLIENT_RATE = { REQUEST_RATE_PER_CLIENT: '1000000', REQUEST_BURST_PER_CLIENT: '1000000' };
