# Shared by tests/27-repro.t and tests/29-bisect.t (sourced, bash).
#
# series_db DB TMP: kwarn run of the test series of tests/25-series-e2e.t
# (tests/data/series on linux-source-6.1, qemu config, no boot) into DB,
# waiting while another kwarn holds the build directory.  Returns kwarn
# run's exit status; its stderr is in TMP/run.err.
series_db() {
	local db=$1 tmp=$2 try rc
	for try in $(seq 80); do
		"$kwarn" run --db "$db" --series "$top/tests/data/series/series" \
			--config "$top/kernel/configs/qemu.config" -j2 \
			--no-boot >"$tmp/run.out" 2>"$tmp/run.err"
		rc=$?
		grep -q 'is in use by another kwarn' "$tmp/run.err" || return $rc
		echo "# build directory in use, waiting ($try)"
		rm -f "$db"
		sleep 30
	done
	return $rc
}
