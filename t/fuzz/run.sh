#!/bin/sh
# t/fuzz/run.sh: runs libFuzzer harnesses one after another and sums each up (make fuzz).
#
#   run.sh SRC DIR SECONDS NAME...
#
# SRC is t/fuzz of the source tree (seeds in SRC/corpus/NAME, read only;
# dictionary SRC/NAME.dict); DIR holds the fuzz-NAME binaries.  New inputs
# go to DIR/corpus/NAME, the log to DIR/NAME.log, a crashing input to
# DIR/crash-NAME/.  Exits 1 when any harness crashed.
set -u

if test $# -lt 4; then
	echo "usage: $0 SRC DIR SECONDS NAME..." >&2
	exit 2
fi
src=$1
dir=$2
secs=$3
shift 3

# Runs one harness; prints its figures; returns libFuzzer's exit status.
run_one () {
	name=$1
	mkdir -p "$dir/corpus/$name" "$dir/crash-$name"
	set -- -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$dir/crash-$name/"
	if test -f "$src/$name.dict"; then
		set -- "$@" -dict="$src/$name.dict"
	fi
	echo "fuzz-$name: running for $secs seconds (log: $dir/$name.log)"
	# A smaller quarantine than ASan's 256 MB keeps use-after-free checks
	# and runs several times faster (fresh pages cost more than the checks).
	ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16} \
		"$dir/fuzz-$name" "$@" "$dir/corpus/$name" "$src/corpus/$name" >"$dir/$name.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$name.log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/$name.log")
	last=$(grep -E '^#[0-9]+' "$dir/$name.log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	if test "$rc" = 0; then
		verdict="no crash"
	else
		verdict="CRASHED (exit $rc): $(sed -n 's/.*Test unit written to //p' "$dir/$name.log" |
			tr '\n' ' ')"
		grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*invariant failed)' "$dir/$name.log" |
			sed 's/^/  /'
	fi
	echo "fuzz-$name: execs: ${execs:-?} (${speed:-?}/s) cov: ${cov:-?} ft: ${ft:-?}" \
		"corpus: ${corp:-?} inputs; $verdict"
	return "$rc"
}

failed=0
for name in "$@"; do
	run_one "$name" || failed=1
done
exit $failed
