#!/bin/bash
# t0520: the include graph of src/ and fcgi/ keeps its layers: fronts (fcgi/,
# src/cli/) over core over the gate (protocol, tool table, schemas) over the
# tools over the services over the store, with the base (err, json, log, buf,
# conf, gz) under all.  No file includes a higher layer, and no two modules
# include each other.  t/lib/layers.pl holds the map.  Needs no database.
. ./test-lib.sh

test_expect_success 'no file includes a higher layer, and no module cycle' '
	perl "$TEST_DIRECTORY/lib/layers.pl" "$SRC_DIR" >out 2>&1 || { cat out; return 1; }
	grep -E "^ok: [0-9]+ files, [0-9]+ includes$" out
'

test_expect_success 'the check finds a store file that includes a tool' '
	mkdir -p tree/src/store tree/src/tools tree/fcgi &&
	printf "#include \"tools/t.h\"\n" >tree/src/store/s.c &&
	: >tree/src/tools/t.h &&
	test_must_fail perl "$TEST_DIRECTORY/lib/layers.pl" tree >out &&
	grep -x "src/store/s.c (store) includes src/tools/t.h (tools), a higher layer" out
'

test_expect_success 'the check finds two modules that include each other' '
	mkdir -p cyc/src/store cyc/fcgi &&
	printf "#include \"store/b.h\"\n" >cyc/src/store/a.h &&
	printf "#include \"store/a.h\"\n" >cyc/src/store/b.h &&
	test_must_fail perl "$TEST_DIRECTORY/lib/layers.pl" cyc >out &&
	grep "^include cycle: src/store/a -> src/store/b -> src/store/a$" out
'

test_expect_success 'the check names a file it has no layer for' '
	mkdir -p new/src new/fcgi &&
	: >new/src/stray.c &&
	test_must_fail perl "$TEST_DIRECTORY/lib/layers.pl" new >out &&
	grep -x "src/stray.c: in no layer (add it to t/lib/layers.pl)" out
'

test_done
