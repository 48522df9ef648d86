#!/bin/bash
# t7100: every tool's arguments, generated from the schemas the running
# server serves in tools/list: each property with a value of every JSON
# type its schema refuses, each required property left out (in both eras),
# arguments of the wrong shape, and numbers at, past and far past their
# bounds.  A refused call is an in-band tool error (isError true) naming the
# argument, as the README documents; nothing is created by a refused call,
# and the workers survive every family.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/hostile.sh"

start_all "$HOSTILE_WORKERS"
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
# every scope, so the execute and merge tools are reached past the gate
TOKEN=$(make_token alice read,write,execute,merge)

Q="'"

test_expect_success "the server runs $HOSTILE_WORKERS workers; their pids are recorded" '
	workers_record
'
hclient_start

# The generator: from a tools/list answer, one tab-separated line per case,
#   kind  tool  property  what  arguments-json  expected-text-ERE
# The other arguments hold values their schemas accept (required ones
# only), so the one under test is the only thing wrong; a null-args line
# carries those valid required arguments alone.
cat >gen.jq <<'EOF'
def types: (.type // []) | if type == "string" then [.] else . end;
def valid($name):
  if $name == "repo" then "alice/fixture"
  elif .enum then .enum[0]
  elif .pattern then "A"
  else (types[0]) as $t
    | if $t == "string" then "a" * ([.minLength // 1, 1] | max)
      elif $t == "integer" then (.minimum // 1)
      elif $t == "number" then 1
      elif $t == "boolean" then true
      elif $t == "array" then []
      elif $t == "object" then {}
      else null end
  end;
def wrongs: [["string", "\"wrong\"", "wrong"], ["integer", "7", 7], ["number", "1.5", 1.5],
  ["boolean", "true", true], ["null", "null", null], ["array", "[\"x\"]", ["x"]],
  ["object", "{\"x\":1}", {"x": 1}]];
def q: "'";
.result.tools[] | .name as $tool | .inputSchema as $s
| ([ ($s.properties | to_entries)[] | .key as $k
     | select(($s.required // []) | index($k))
     | {($k): (.value | valid($k))} ] | add // {}) as $base
| ( ($s.properties | to_entries)[] | .key as $p | .value as $ps | ($ps | types) as $t
    | ( wrongs[]
        | select(.[0] as $k | ($t | index($k)) == null and
                 ($k != "integer" or ($t | index("number")) == null))
        | ["type", $tool, $p, .[1], ($base + {($p): .[2]} | tojson),
           "^argument " + q + $p + q + " must be "] ),
      ( select($t | index("integer") or index("number"))
        | ( if $ps.maximum != null then
              ["bound", $tool, $p, ($ps.maximum + 1 | tostring), ($base + {($p): ($ps.maximum + 1)} | tojson),
               "^argument " + q + $p + q + " must be at most " + ($ps.maximum | tostring) + "$"],
              ["bound", $tool, $p, "99999999999999999999", ($base + {($p): "@N@"} | tojson | sub("\"@N@\""; "99999999999999999999")),
               "^argument " + q + $p + q + " must be at most " + ($ps.maximum | tostring) + "$"]
            else empty end ),
          ( select($t | index("number") | not)
            | ["type", $tool, $p, "1e300", ($base + {($p): "@N@"} | tojson | sub("\"@N@\""; "1e300")),
               "^argument " + q + $p + q + " must be an integer$"],
              ["type", $tool, $p, "1.0", ($base + {($p): "@N@"} | tojson | sub("\"@N@\""; "1.0")),
               "^argument " + q + $p + q + " must be an integer$"] ),
          ( if $ps.minimum != null then
              ["bound", $tool, $p, ($ps.minimum - 1 | tostring), ($base + {($p): ($ps.minimum - 1)} | tojson),
               "^argument " + q + $p + q + " must be at least " + ($ps.minimum | tostring) + "$"],
              ["bound", $tool, $p, "-99999999999999999999", ($base + {($p): "@N@"} | tojson | sub("\"@N@\""; "-99999999999999999999")),
               "^argument " + q + $p + q + " must be at least " + ($ps.minimum | tostring) + "$"]
            else empty end ) ) ),
  ( ($s.required // [])[] as $r
    | ["missing", $tool, $r, "-", ($base | del(.[$r]) | tojson),
       "^missing required argument " + q + $r + q + "$"] ),
  ( ["null-args", $tool, "-", "null", ($base | tojson),
     (if ($s.required // []) | length > 0
      then "^missing required argument " + q + $s.required[0] + q + "$" else "-" end)] )
| @tsv
EOF

test_expect_success 'tools/list is served and the cases are generated from its schemas' '
	mcp_modern tools/list &&
	test_status 200 &&
	cp "$RESP.body" tools.json &&
	jq -r -f gen.jq tools.json >cases.tsv &&
	jq -r ".result.tools[].name" tools.json >tools.txt &&
	test "$(wc -l <tools.txt)" -ge 15 &&
	for k in type bound accept missing null-args; do
		awk -F "\t" -v k=$k "\$1 == k" cases.tsv >$k.tsv || return 1
	done &&
	for t in $(jq -r ".result.tools[] | select(.inputSchema.properties // {} | length > 0) | .name" tools.json); do
		grep -q "^type	$t	" type.tsv || { echo "no case for $t"; return 1; }
	done &&
	wc -l type.tsv bound.tsv accept.tsv missing.tsv null-args.tsv
'

# ---------------------------------------------------------------------------
family_begin 'every wrong JSON type of every tool argument'

while IFS=$'\t' read -r -u 3 kind tool prop what args re; do
	C_TOOL=$tool C_ARGS=$args C_RE=$re
	test_expect_success "$FAMILY: $tool $prop = $what -> isError naming $Q$prop$Q" '
		call_modern "$C_TOOL" "$C_ARGS" &&
		expect_tool_error "$C_RE"
	'
done 3<type.tsv

test_expect_success "$FAMILY: no refused call created anything" '
	test "$(db_sql "select (select count(*) from issues) + (select count(*) from pull_requests) + (select count(*) from comments)")" = 0
'

family_end

# ---------------------------------------------------------------------------
family_begin 'each required argument missing, both eras'

while IFS=$'\t' read -r -u 3 kind tool prop what args re; do
	C_TOOL=$tool C_ARGS=$args C_RE=$re
	test_expect_success "$FAMILY: $tool without $prop (2026-07-28) -> isError naming it" '
		call_modern "$C_TOOL" "$C_ARGS" &&
		expect_tool_error "$C_RE"
	'
	test_expect_success "$FAMILY: $tool without $prop (legacy) -> isError naming it" '
		call_legacy "$C_TOOL" "$C_ARGS" &&
		expect_tool_error "$C_RE" &&
		[[ $BODY != *"\"resultType\""* ]] || show_ "a legacy result has no resultType"
	'
done 3<missing.tsv

family_end

# ---------------------------------------------------------------------------
family_begin 'arguments of the wrong shape'

while IFS=$'\t' read -r -u 3 kind tool prop what args re; do
	C_TOOL=$tool C_RE=$re
	if test "$args" = "{}"; then C_ARGS='{"zz_unknown":1}'; else C_ARGS="${args%\}},\"zz_unknown\":1}"; fi
	test_expect_success "$FAMILY: $tool with an array as arguments -> isError" '
		call_modern "$C_TOOL" "[\"repo\",\"alice/fixture\"]" &&
		expect_tool_error "^.?\"arguments.?\" must be an object$"
	'
	test_expect_success "$FAMILY: $tool with an unknown argument (legacy) -> isError naming it" '
		call_legacy "$C_TOOL" "$C_ARGS" &&
		expect_tool_error "^unknown argument ${Q}zz_unknown$Q$"
	'
	test_expect_success "$FAMILY: $tool with null as arguments is a call without any" '
		call_modern "$C_TOOL" null &&
		if test "$C_RE" = -; then
			test "$STATUS" = 200 && [[ $BODY == *"\"result\":{"* ]] || show_ "expected a result" || return 1
			! json_string_at_ text || [[ ! $JSTR =~ ^(argument|missing|unknown) ]] ||
				show_ "expected no schema error"
		else
			expect_tool_error "$C_RE"
		fi
	'
done 3<null-args.tsv

for a in '"alice/fixture"' 5 true '{"repo":"alice/fixture"}x'; do
	C_A=$a
	test_expect_success "$FAMILY: list_branches with arguments $a -> refused" '
		call_modern list_branches "$C_A" &&
		case $C_A in
		*x) expect_rpc_error 400 -32700 "^Parse error" null ;;
		*) expect_tool_error "^.?\"arguments.?\" must be an object$" ;;
		esac
	'
done

family_end

# ---------------------------------------------------------------------------
family_begin 'numbers at and past their bounds'

while IFS=$'\t' read -r -u 3 kind tool prop what args re; do
	C_TOOL=$tool C_ARGS=$args C_RE=$re
	test_expect_success "$FAMILY: $tool $prop = $what -> isError naming $Q$prop$Q" '
		call_modern "$C_TOOL" "$C_ARGS" &&
		expect_tool_error "$C_RE"
	'
done 3<bound.tsv

# Properties without that bound take any size: the call passes the gate and
# the tool answers (a result, or a tool error of its own, never a crash).
while IFS=$'\t' read -r -u 3 kind tool prop what args re; do
	C_TOOL=$tool C_ARGS=$args
	test_expect_success "$FAMILY: $tool $prop = $what passes the schema" '
		call_modern "$C_TOOL" "$C_ARGS" &&
		test "$STATUS" = 200 &&
		[[ $BODY == *"\"result\":{"* ]] || show_ "expected a result" || return 1
		json_string_at_ text && [[ ! $JSTR =~ ^(argument|missing|unknown) ]] ||
			show_ "expected no schema error"
	'
done 3<accept.tsv

test_expect_success "$FAMILY: three issues to page through" '
	for t in one two three; do
		call_modern create_issue "{\"repo\":\"alice/fixture\",\"title\":\"$t\"}" &&
		expect_tool_ok || return 1
	done
'

# numbers_of: the issue numbers of a list_issues answer.
numbers_of () {
	jq_body -r '[.result.structuredContent.issues[].number] | map(tostring) | join(" ")'
}

test_expect_success "$FAMILY: list_issues page 1 lists from the newest" '
	call_modern list_issues "{\"repo\":\"alice/fixture\",\"page\":1}" &&
	expect_tool_ok &&
	test "$(numbers_of)" = "3 2 1"
'

for c in 2 2147483647; do
	C_C=$c
	test_expect_success "$FAMILY: list_issues page $c, past the last one, is empty" '
		call_modern list_issues "{\"repo\":\"alice/fixture\",\"page\":$C_C}" &&
		expect_tool_ok &&
		test "$(numbers_of)" = "" &&
		jq_body -e ".result.structuredContent.has_more == false"
	'
done

for c in 18446744073709551615 99999999999999999999 9223372036854775807; do
	C_C=$c
	test_expect_success "$FAMILY: list_issues page $c is refused, naming page" '
		call_modern list_issues "{\"repo\":\"alice/fixture\",\"page\":$C_C}" &&
		expect_tool_error "^argument ${Q}page$Q must be at most 2147483647$"
	'
done

test_expect_success "$FAMILY: get_issue comments_offset 99999999999999999999 answers with no comment" '
	call_modern add_issue_comment "{\"repo\":\"alice/fixture\",\"number\":1,\"body\":\"c\"}" &&
	expect_tool_ok &&
	call_modern get_issue "{\"repo\":\"alice/fixture\",\"number\":1,\"comments_offset\":99999999999999999999}" &&
	expect_tool_ok &&
	jq_body -e ".result.structuredContent.comments == []"
'

family_end

hostile_summary 300

test_done
