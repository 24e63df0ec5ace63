# SPDX-License-Identifier: GPL-2.0
#
# Debian's debuginfod for the tests: a server on a loopback port of its
# own over a directory (-F), and a client that asks it until its scan
# has found an id.  Sourced (bash); needs $tmp (tap_tmpdir).
#
#	debuginfod_start DIR [NAME]	start one; its URL in $debuginfod_url
#	debuginfod_fetch ID		the path debuginfod-find fetched, or 1
#	debuginfod_stop			stop every one started

debuginfod_pids=

debuginfod_start()
{
	local name=${2:-server} port
	port=$((20000 + (RANDOM * 7 + $$) % 30000))
	debuginfod -F -p "$port" -d "$tmp/$name.sqlite" -t 0 "$1" >"$tmp/$name.log" 2>&1 &
	debuginfod_pids="$debuginfod_pids $!"
	debuginfod_url=http://127.0.0.1:$port
	# Asked before the scan found it, an id is not asked again for 10
	# minutes (the client's cache_miss_s): here, at once.
	mkdir -p "$tmp/client"
	echo 0 >"$tmp/client/cache_miss_s"
}

# At most 60 s: a scan of a small directory takes less than one.
debuginfod_fetch()
{
	local i path
	for i in $(seq 120); do
		path=$(DEBUGINFOD_CACHE_PATH=$tmp/client DEBUGINFOD_TIMEOUT=5 \
			debuginfod-find executable "$1" 2>/dev/null) && { echo "$path"; return 0; }
		sleep 0.5
	done
	return 1
}

debuginfod_stop()
{
	local p
	for p in $debuginfod_pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	debuginfod_pids=
}
