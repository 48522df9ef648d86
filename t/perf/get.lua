-- get.lua: wrk script for the static-file ceiling; writes the same JSON
-- line as post.lua to BENCH_OUT.
done = function(summary, latency, requests)
	local e = summary.errors
	local secs = summary.duration / 1e6
	local f = assert(io.open(os.getenv("BENCH_OUT"), "w"))
	f:write(string.format(
		'{"requests":%d,"seconds":%.3f,"rps":%.1f,"p50_ms":%.3f,"p99_ms":%.3f,' ..
		'"errors":%d,"non2xx":%d}\n',
		summary.requests, secs, summary.requests / secs,
		latency:percentile(50) / 1000, latency:percentile(99) / 1000,
		e.connect + e.read + e.write + e.timeout, e.status))
	f:close()
end
