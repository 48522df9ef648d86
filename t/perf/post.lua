-- post.lua: wrk script for t/perf/bench.sh.
-- Environment: BENCH_BODIES  body files separated by ':' (one is the usual
--                            case; several are sent round-robin, for the soak)
--              BENCH_PICK    "random": each request takes one of the bodies at
--                            random instead (each thread its own sequence), so
--                            the threads do not march through them in step
--              BENCH_HEADERS extra headers "Name: value" separated by '|'
--              BENCH_OUT     file that receives one JSON line of results
local bodies = {}
for f in string.gmatch(os.getenv("BENCH_BODIES") or "", "[^:]+") do
	local h = assert(io.open(f, "rb"))
	bodies[#bodies + 1] = h:read("*a")
	h:close()
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
-- what Node's fetch (the SDK clients) sends; BENCH_HEADERS may replace it
wrk.headers["Accept-Encoding"] = "gzip, deflate"
for h in string.gmatch(os.getenv("BENCH_HEADERS") or "", "[^|]+") do
	local k, v = string.match(h, "^%s*([^:]+):%s*(.*)$")
	if k then wrk.headers[k] = v end
end
local n = 0
local reqs = {}
local random = os.getenv("BENCH_PICK") == "random"
local threads = 0
setup = function(thread)
	threads = threads + 1
	thread:set("thread_id", threads)
end
-- built in init: wrk adds the Host header only after the script is loaded
init = function(args)
	for i, b in ipairs(bodies) do reqs[i] = wrk.format(nil, nil, nil, b) end
	if #reqs == 0 then reqs[1] = wrk.format(nil, nil, nil, "") end
	if random then math.randomseed(os.time() * 1000 + (thread_id or 0) * 7919) end
end

request = function()
	if random then return reqs[math.random(#reqs)] end
	n = n + 1
	return reqs[(n - 1) % #reqs + 1]
end

done = function(summary, latency, requests)
	local e = summary.errors
	local secs = summary.duration / 1e6
	local out = string.format(
		'{"requests":%d,"seconds":%.3f,"rps":%.1f,"p50_ms":%.3f,"p99_ms":%.3f,' ..
		'"errors":%d,"non2xx":%d}\n',
		summary.requests, secs, summary.requests / secs,
		latency:percentile(50) / 1000, latency:percentile(99) / 1000,
		e.connect + e.read + e.write + e.timeout, e.status)
	local path = os.getenv("BENCH_OUT")
	if path then
		local f = assert(io.open(path, "w"))
		f:write(out)
		f:close()
	else
		io.write(out)
	end
end
