# Sourced by tests/70-distcc.t and bench/distcc: a distcc "farm" of two
# distccd daemons on 127.0.0.1 and distcc-pump's include server.
#
#   farm_start DIR [LIFETIME_S]   start both daemons and the include server,
#                                 logs in DIR; exports DISTCC_HOSTS,
#                                 INCLUDE_SERVER_PORT and friends
#   farm_stop                     stop all three (safe to call twice)
#
# Each daemon listens on 127.0.0.1 only, on a free port, allows 127.0.0.1
# only, takes 2 jobs and runs under `timeout LIFETIME_S` (default 900), so
# it ends even if the caller dies without calling farm_stop.  The include
# server of Debian 12's distcc-pump needs scripts/distcc-pump-fix (see its
# comment), which scripts/kwarn-pump loads.  Returns non-zero with a message on stderr on failure.

farm_pids=()
farm_pump=0

farm_free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

farm_start() {
	local dir=$1 life=${2:-900} top i port hosts=""

	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	for t in distccd distcc distcc-pump python3; do
		if ! command -v "$t" >/dev/null; then
			echo "farm: '$t' is not installed: run scripts/install-deps" >&2
			return 1
		fi
	done
	# distccd run as root drops to the user distccd, which must be
	# able to write its log
	chmod 755 "$dir"
	for i in 1 2; do
		port=$(farm_free_port) || return 1
		: >"$dir/distccd$i.log"
		chmod 666 "$dir/distccd$i.log"
		timeout "$life" distccd --daemon --no-detach \
			--listen 127.0.0.1 --allow 127.0.0.1 --port "$port" \
			--jobs 2 --log-level info \
			--log-file "$dir/distccd$i.log" &
		farm_pids+=($!)
		hosts="$hosts 127.0.0.1:$port/2,cpp,lzo"
		eval "farm_port$i=$port"
	done
	export DISTCC_HOSTS=${hosts# }
	# never compile locally behind kwarn's back, so a test sees it
	export DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1
	export DISTCC_DIR="$dir/distcc-dir"
	mkdir -p "$DISTCC_DIR"
	# until both listen: at most a minute, for a loaded machine
	for i in $(seq 600); do
		grep -q "listening on" "$dir/distccd1.log" &&
			grep -q "listening on" "$dir/distccd2.log" && break
		sleep 0.1
	done
	if ! grep -q "listening on" "$dir/distccd1.log" ||
		! grep -q "listening on" "$dir/distccd2.log"; then
		echo "farm: distccd did not start:" >&2
		cat "$dir"/distccd*.log >&2
		return 1
	fi
	# eval of its own output: INCLUDE_SERVER_PORT and friends
	local env
	env=$("$top/scripts/kwarn-pump" --startup 2>"$dir/pump.err") || {
		echo "farm: distcc-pump --startup failed:" >&2
		cat "$dir/pump.err" >&2
		return 1
	}
	eval "$env"
	farm_pump=1
	return 0
}

farm_stop() {
	local p

	if [ "$farm_pump" = 1 ]; then
		distcc-pump --shutdown >/dev/null 2>&1
		farm_pump=0
	fi
	for p in "${farm_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${farm_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	farm_pids=()
	unset INCLUDE_SERVER_PORT INCLUDE_SERVER_PID INCLUDE_SERVER_DIR \
		KWARN_PUMP
}
