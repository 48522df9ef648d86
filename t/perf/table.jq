# table.jq: turns the result lines of bench.sh (jq -s) into bench.json.
# Each case gets the ceiling it is compared with in the same run; ratio is
# its req/s divided by the ceiling's req/s (or runs/s of the git command,
# which is only compared at 1 connection).
def find($n; $c): map(select(.case == $n and .conns == $c)) | first;
def ceil_of($r):
  if ($r.case == "tools/list-legacy" or $r.case == "tools/list-2026-07-28" or $r.case == "tools/list-legacy, identity") then ["trivial"]
  elif $r.case == "get_file_contents" then ["trivial", "static-10KB"]
  elif $r.case == "tools/list-legacy, limit on" then ["tools/list-legacy, limit off"]
  elif $r.case == "search_code" and $r.conns == 1 then ["git grep -F -i"]
  elif $r.case == "search_code-regex" and $r.conns == 1 then ["git grep -P -i"]
  elif $r.case == "get_pull_request" and $r.conns == 1 then ["git diff base...head"]
  elif $r.case == "list_commits-50" and $r.conns == 1 then ["git log -50"]
  elif $r.case == "get_tree-root" and $r.conns == 1 then ["git ls-tree"]
  elif $r.case == "get_run_logs-16MiB" then ["get_file_contents-64KiB"]
  elif ($r.case | startswith("hub-issues")) then ["trivial"]
  else [] end;
def r2: . * 100 | round / 100;
def paired($r): map(select(.paired != null and .case == $r.case and .conns == $r.conns)) | first;
. as $all
| {
  date: $date, machine: $host, seconds_per_case: ($secs | tonumber),
  large_repo: {files: $files, commits: $commits, pack_mb: $pack},
  table: [ $all[] | select(.paired == null) as $r
    | (ceil_of($r) | map(. as $n | ($all | map(select(.paired == null)) | find($n; (if ($n | startswith("git")) then 1 else $r.conns end))))) as $cs
    | ($all | paired($r)) as $p
    | $r + {
        ceiling: ($cs | map(.case) | join(" / ")),
        # against the trivial responder a paired median replaces the ratio of the two long runs
        ratio: (if ($cs | length) == 0 then null
                else ($cs | map(if .case == "trivial" and $p != null then $p.paired else $r.rps / .rps end
                  | r2 | tostring) | join(" / ")) end),
        paired_rounds: ($p.rounds // null),
        ratio_single_run: (if $p != null then ($r.rps / ($cs[0].rps)) | r2 else null end)
      } ],
  rss_after_run_kb: $rss,
  rss_idle_kb: $rss_idle,
  soak: $soak,
  startup_ms: ($startup | tonumber? // null),
  ci_start_ms: ($ci_start | tonumber? // null),
  sdlc: $sdlc,
  wiki: $wiki,
  search: $search,
  issues_created: ($issues | tonumber? // null)
}
