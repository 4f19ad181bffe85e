-- wrk script: a flood of override writes by one manage key, each request a real change: a new
-- IP line posted, then, once it is stored, removed, and so on; new targets each round. Prints a
-- JSON summary at the end. Run with one connection (-c1): each request waits for the last answer;
-- RATE writes a second at most (0: back to back).
-- usage: wrk -t1 -c1 ... -s bench/override-flood.lua URL -- BEARER_KEY ROUND [RATE]
local n = 0
local round = 0
local rate = 0
-- The target of the last POST sent, and the line stored to remove next.
local posting = nil
local stored = nil

function init(args)
  wrk.headers["Authorization"] = "Bearer " .. args[1]
  wrk.headers["Content-Type"] = "application/json"
  round = tonumber(args[2]) or 0
  rate = tonumber(args[3]) or 0
end

function delay()
  if rate > 0 then return 1000 / rate end
  return 0
end

function request()
  if stored then
    local target = stored
    stored = nil
    posting = nil
    return wrk.format("DELETE", "/v1/overrides/ip:" .. target)
  end
  n = n + 1
  posting = string.format("13.%d.%d.%d", round % 256, math.floor(n / 256) % 256, n % 256)
  return wrk.format("POST", "/v1/overrides", nil,
    string.format('{"kind":"ip","target":"%s","action":"deny","reason":"bench flood"}', posting))
end

function response(status, headers, body)
  if status == 201 then stored = posting end
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('BENCH {"requests":%d,"duration_us":%d,"non2xx":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.errors.status, errors,
    latency:percentile(50), latency:percentile(99), latency.max))
end
