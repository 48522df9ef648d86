-- load.lua: wrk script of t/t8100-load.t: a fixed number of mixed MCP
-- requests, every answer written down.
--
-- LOAD_OUT=... LOAD_QUOTA=... LOAD_TOKEN=... LOAD_REPOS=... \
--     wrk -t T -c C -d 600s -s load.lua URL
--   LOAD_OUT    prefix of the output files: OUT.<thread> gets one line per
--               answer and OUT.<thread>.done appears when the thread has
--               all its answers; OUT.summary gets wrk's figures (done())
--   LOAD_QUOTA  requests per thread
--   LOAD_TOKEN  bearer token
--   LOAD_REPOS  comma-separated owner/name list the requests go to
-- wrk runs for its duration even when every thread has stopped: send it
-- SIGINT once all the .done files are there.
--
-- Each thread sends QUOTA requests in a fixed cycle of ten: seven reads
-- (tools/list twice, get_issue twice, list_issues, get_file_contents twice)
-- and three writes (create_issue twice, add_issue_comment once), spread over
-- REPOS.  Titles and comment bodies are unique: "load <thread>-<seq>".
-- Once a thread has sent its quota it sends only padding (a path nginx
-- answers 404 itself) until every real request is answered, so that no
-- request is left unanswered when it stops.
--
-- An answer line: status kind detail
--   kind    result | iserror | rpcerror | other
--   detail  "issue <owner/name> <number>" for an answered create_issue,
--           "comment <id>" for an answered add_issue_comment, else "-"
--
-- Licensed under the ISC license, see LICENSE.

local next_id = 1

function setup(thread)
	thread:set("id", next_id)
	next_id = next_id + 1
end

local out, quota, token, repos
local sent, answered, pads = 0, 0, 0
local file, pad_request
-- wrk calls request() once on the first thread before the run to check the
-- script's output, and never sends that request: it must not count.
local checked

local function meta()
	return '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
	    '"io.modelcontextprotocol/clientCapabilities":{}}'
end

-- A modern request: the body with _meta and the headers the era requires.
local function call(seq, method, name, args)
	local params
	if name then
		params = string.format('{%s,"name":"%s","arguments":%s}', meta(), name, args)
	else
		params = string.format('{%s}', meta())
	end
	local body = string.format('{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}',
	    seq, method, params)
	local h = {
		["Content-Type"] = "application/json",
		["Accept"] = "application/json, text/event-stream",
		["Authorization"] = "Bearer " .. token,
		["MCP-Protocol-Version"] = "2026-07-28",
		["Mcp-Method"] = method,
	}
	if name then h["Mcp-Name"] = name end
	return wrk.format("POST", "/mcp", h, body)
end

function init(args)
	out, quota, token = os.getenv("LOAD_OUT"), tonumber(os.getenv("LOAD_QUOTA")),
	    os.getenv("LOAD_TOKEN")
	repos = {}
	for r in string.gmatch(os.getenv("LOAD_REPOS"), "[^,]+") do repos[#repos + 1] = r end
	file = assert(io.open(out .. "." .. id, "w"))
	checked = id ~= 1
end

-- Padding waits a little: it only keeps the connection busy until the
-- thread's last real answers are in.
function delay()
	if sent >= quota then return 20 end
	return 0
end

function request()
	if not checked then
		checked = true
		return call(0, "tools/list")
	end
	if sent >= quota then
		pads = pads + 1
		if not pad_request then
			pad_request = wrk.format("POST", "/padding", { ["Content-Length"] = "0" }, "")
		end
		return pad_request
	end
	sent = sent + 1
	local seq = sent
	local tag = id .. "-" .. seq
	local repo = repos[(seq + id) % #repos + 1]
	local r = '"repo":"' .. repo .. '"'
	local slot = seq % 10
	if slot == 0 or slot == 5 then
		return call(seq, "tools/list")
	elseif slot == 1 or slot == 6 then
		return call(seq, "tools/call", "get_issue", "{" .. r .. ',"number":' .. (seq % 5 + 1) .. "}")
	elseif slot == 2 then
		return call(seq, "tools/call", "list_issues", "{" .. r .. ',"page":1}')
	elseif slot == 3 or slot == 8 then
		return call(seq, "tools/call", "get_file_contents", "{" .. r .. ',"path":"README.md"}')
	elseif slot == 4 or slot == 9 then
		return call(seq, "tools/call", "create_issue",
		    "{" .. r .. ',"title":"load ' .. tag .. '","body":"made by the load test"}')
	else
		return call(seq, "tools/call", "add_issue_comment",
		    "{" .. r .. ',"number":' .. (seq % 5 + 1) .. ',"body":"load ' .. tag .. '"}')
	end
end

function response(status, headers, body)
	if status == 404 and string.find(body, "<html>", 1, true) then
		return	-- padding, answered by nginx
	end
	answered = answered + 1
	local kind, detail = "other", "-"
	if string.find(body, '"error":{', 1, true) and not string.find(body, '"result":', 1, true) then
		kind = "rpcerror"
	elseif string.find(body, '"isError":true', 1, true) then
		kind = "iserror"
	elseif string.find(body, '"result":', 1, true) then
		kind = "result"
		local n, repo = string.match(body,
		    '"structuredContent":{"number":(%d+),"state":"open","url":"[^"]*/([^/"]+/[^/"]+)/issues/%d+"}')
		if n then
			detail = "issue " .. repo .. " " .. n
		else
			local c = string.match(body, '"structuredContent":{"id":(%d+),"url":"[^"]*#issuecomment%-%d+"}')
			if c then detail = "comment " .. c end
		end
	end
	file:write(status, "\t", kind, "\t", detail, "\n")
	if answered >= quota then
		file:close()
		assert(io.open(out .. "." .. id .. ".done", "w")):close()
		wrk.thread:stop()
	end
end

function done(summary, latency, requests)
	-- runs in the set-up state, where init() did not run
	local f = assert(io.open(os.getenv("LOAD_OUT") .. ".summary", "w"))
	local e = summary.errors
	f:write(string.format(
	    '{"requests":%d,"seconds":%.3f,"rps":%.1f,"p50_ms":%.2f,"p99_ms":%.2f,' ..
	    '"max_ms":%.2f,"connect":%d,"read":%d,"write":%d,"timeout":%d,"non2xx":%d}\n',
	    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
	    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
	    e.connect, e.read, e.write, e.timeout, e.status))
	f:close()
end
