-- wrk script: a new random global-unicast address for every request (four IPv4 to one
-- IPv6, as bench/pools.ts), so no cache of any size can answer from a previous request.
-- usage: wrk ... -s bench/distinct.lua URL -- BEARER_KEY
local n = 0

function init(args)
  if args[1] and args[1] ~= "" then wrk.headers["Authorization"] = "Bearer " .. args[1] end
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
end

-- First octets that are never global unicast: 0, 10, 127, 224 and above; and the
-- special /16s and /12s under 100, 169, 172, 192 and 198.
local function ipv4()
  while true do
    local a, b = math.random(1, 223), math.random(0, 255)
    if a ~= 10 and a ~= 127 and not (a == 100 and b >= 64 and b < 128) and not (a == 169 and b == 254)
      and not (a == 172 and b >= 16 and b < 32) and not (a == 192 and (b == 168 or b == 0)) and not (a == 198 and (b == 18 or b == 19 or b == 51)) then
      return string.format("%d.%d.%d.%d", a, b, math.random(0, 255), math.random(1, 254))
    end
  end
end

-- Inside 2000::/4, where nearly all allocated space is, avoiding 2001:db8::/32 and 2002::/16.
local function ipv6()
  local first = math.random(0x2400, 0x2fff)
  return string.format("%x:%x:%x:%x:%x:%x:%x:%x", first, math.random(0, 0xffff), math.random(0, 0xffff), math.random(0, 0xffff),
    math.random(0, 0xffff), math.random(0, 0xffff), math.random(0, 0xffff), math.random(1, 0xffff))
end

function request()
  n = n + 1
  local address = (n % 5 == 0) and ipv6() or ipv4()
  return wrk.format("GET", "/v1/ip-reputation-check?ip=" .. address)
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('BENCH {"requests":%d,"duration_us":%d,"non2xx":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.errors.status, errors,
    latency:percentile(50), latency:percentile(99), latency.max))
end
