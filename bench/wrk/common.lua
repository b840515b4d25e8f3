-- Shared by the benchmark's wrk scripts (loaded with dofile, paths relative to the repository
-- root). Scripts with a response() callback call count(status): each thread counts answers per
-- wall-clock second and those outside 2xx. done() prints one line, BENCH {json}, that
-- bench/bench.py reads; wrk's own "status" counter covers 4xx and 5xx for scripts without one.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end

per_second, non_2xx = {}, 0

function count(status)
  local now = os.time()
  per_second[now] = (per_second[now] or 0) + 1
  if status < 200 or status > 299 then non_2xx = non_2xx + 1 end
end

function done(summary, latency, requests)
  local seconds, failed = {}, 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("non_2xx") or 0)
    for second, n in pairs(thread:get("per_second") or {}) do seconds[second] = (seconds[second] or 0) + n end
  end
  local buckets = {}
  for second, n in pairs(seconds) do table.insert(buckets, string.format('"%d": %d', second, n)) end
  local errors = summary.errors
  io.write(string.format(
    'BENCH {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "status_errors": %d, ' ..
    '"non_2xx": %d, "socket_errors": %d, "per_second": {%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), errors.status, failed,
    errors.connect + errors.read + errors.write + errors.timeout, table.concat(buckets, ", ")))
end
