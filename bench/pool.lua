-- wrk script: cycles through the request paths listed in a file (one per line),
-- each thread from a different offset, and prints a JSON summary at the end.
-- usage: wrk ... -s bench/pool.lua URL -- PATHS_FILE [BEARER_KEY]
local paths = {}
local i = 0

function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  if args[2] and args[2] ~= "" then wrk.headers["Authorization"] = "Bearer " .. args[2] end
  i = math.random(#paths)
end

function request()
  i = i + 1
  if i > #paths then i = 1 end
  return wrk.format("GET", paths[i])
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('BENCH {"requests":%d,"duration_us":%d,"non2xx":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.errors.status, errors,
    latency:percentile(50), latency:percentile(99), latency.max))
end
