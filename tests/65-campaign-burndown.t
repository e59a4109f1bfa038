#!/bin/bash
# kwarn-test: kernel (left out by make check-fast)
# The main job: kwarn run of the campaign (kernel/series, 14 patches on
# linux-source-6.1 with the qemu and campaign configs, as make demo runs
# it) over the objects its patches touch (--targets, as
# scripts/dashboard-screenshot names them: no bzImage, no boot), through
# the compiler cache.  What make demo promises, checked against
# kernel/README.md and the patches themselves, not against kwarn:
#
#  - the burn-down 26, 23, 19, 14, 11, 10, 8, 7, 6, 6, 1, 1, 0, 0, 0, with
#    nothing new at any point and every object built at every point;
#  - each port fixes the warnings kernel/README.md maps to it (function,
#    count, the case label of gcc's note), each fixed warning is in an
#    object built from a file that port's patch changes, and each was
#    there at the base;
#  - the two seed missing breaks (drm/amdkfd kfd_crat.c, drm/amdgpu gfx10)
#    are the classifier's "likely missing break", with break; as the fix,
#    and no other warning of the base is.
#
# Cold: a build directory of its own (config, prepare, 20 objects) and an
# object or a few per point, about 4 minutes on 2 cores; warm (objects
# from the compiler cache): about a minute.
#
# Set KWARN_CAMPAIGN_DB to a database of such a run to skip the kwarn run.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.."
top=$(pwd)
kwarn="$top/bin/kwarn"
export KWARN_DATA="$top"
export KWARN_CACHE="${KWARN_CACHE:-$HOME/.cache/kwarn}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/lib/tap.sh"

if [ ! -r /usr/src/linux-source-6.1.tar.xz ] || ! command -v ccache >/dev/null; then
	echo "# linux-source-6.1 or ccache is not installed: run scripts/install-deps"
	ok 1 "linux-source-6.1 and ccache installed"
	done_tap
fi

db="$tmp/campaign.db"
# the objects of the series; amdgpu builds the amdkfd and display ones
# (their includes come from amdgpu's Makefile), so they go by its path
targets=$(grep -h '^+++ b/.*\.c$' kernel/patches/[0-9]*.patch |
	sed -E 's|^\+\+\+ b/||; s|\.c$|.o|
		s#drivers/gpu/drm/amd/(amdkfd|display)/#drivers/gpu/drm/amd/amdgpu/../\1/#' |
	sort -u | paste -sd,)
check "the series touches 19 objects" test "$(tr , '\n' <<<"$targets" | wc -l)" = 19

if [ -n "${KWARN_CAMPAIGN_DB:-}" ]; then
	db=$KWARN_CAMPAIGN_DB
else
	start=$(date +%s)
	for try in $(seq 40); do
		rm -f "$db"
		nice -n 10 "$kwarn" run --db "$db" --targets "$targets" --no-boot \
			--compiler-cache -j2 >"$tmp/run.out" 2>"$tmp/run.err"
		rc=$?
		grep -q 'is in use by another kwarn' "$tmp/run.err" || break
		echo "# build directory in use, waiting ($try)"
		sleep 30
	done
	echo "# kwarn run of kernel/series took $(($(date +%s) - start)) s"
	check "kwarn run of kernel/series exits 0 (rc=$rc)" test "$rc" = 0
	[ "$rc" = 0 ] || tail -20 "$tmp/run.err" | sed 's/^/# /'
fi
"$kwarn" report --db "$db" --format json >"$tmp/report.json"
j() { jq -r "$1" "$tmp/report.json"; }
col() { j "[.commits[] | .$1 // \"null\"] | map(tostring) | join(\" \")"; }

check "the campaign's configs (qemu + campaign)" \
	test "$(sqlite3 "$db" "SELECT config FROM runs")" = "tinyconfig+qemu.config+campaign.config"
check "15 points: the base and the 14 patches" test "$(j '.commits | length')" = 15
check "every point built ($(col status))" \
	test "$(j '[.commits[] | select(.status == "ok")] | length')" = 15
check "the burn-down 26 23 19 14 11 10 8 7 6 6 1 1 0 0 0 ($(col warnings))" \
	test "$(col warnings)" = "26 23 19 14 11 10 8 7 6 6 1 1 0 0 0"
check "fixed per point ($(col fixed))" \
	test "$(col fixed)" = "0 3 4 5 3 1 2 1 1 0 5 0 1 0 0"
check "nothing new at any point ($(col new))" \
	test "$(col new)" = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
check "no object not built at any point ($(col not_built))" \
	test "$(col not_built)" = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"

# kernel/README.md's table: the point, the function of each warning its
# port removes, how many
cat >"$tmp/want-functions" <<'EOF'
1 count_ports
1 manage_channel
1 set_broadcast_channel
2 at91_irq_err_state
2 at91_irq_err_state
2 mcp251x_can_ist
2 pciefd_can_probe
3 yfs_deliver_fs_fetch_opaque_acl
3 yfs_deliver_fs_fetch_opaque_acl
3 yfs_deliver_fs_fetch_opaque_acl
3 yfs_deliver_fs_fetch_opaque_acl
3 yfs_deliver_fs_fetch_opaque_acl
4 afs_deliver_fs_fetch_acl
4 afs_deliver_fs_fetch_acl
4 afs_deliver_fs_fetch_acl
5 onenand_check_features
6 intel_pmu_init
6 intel_pmu_init
7 kfd_get_gpu_cache_info
8 gfx_v10_0_set_gfx_eop_interrupt_state
10 dccg2_init
10 dccg2_init
10 dccg2_init
10 dccg2_init
10 dccg2_init
12 check_return_code
EOF
fixed='.commits[] | .position as $p | .warnings_list[] | select(.state == "fixed")'
j "$fixed | \"\(\$p) \(.function)\"" | sort >"$tmp/got-functions"
check "each port fixes the warnings kernel/README.md maps to it" \
	cmp -s <(sort "$tmp/want-functions") "$tmp/got-functions"
diff <(sort "$tmp/want-functions") "$tmp/got-functions" | sed 's/^/# /'

# and the case label of gcc's note, where it is one in the .c file (the
# gfx10 and dccg2_init notes are in the register macros of headers, the
# verifier's warning has none)
cat >"$tmp/want-labels" <<'EOF'
1|count_ports|case SELFID_PORT_PARENT
1|manage_channel|default
1|set_broadcast_channel|case RCODE_ADDRESS_ERROR
2|at91_irq_err_state|case CAN_STATE_ERROR_WARNING
2|at91_irq_err_state|case CAN_STATE_ERROR_WARNING
2|mcp251x_can_ist|case CAN_STATE_ERROR_WARNING
2|pciefd_can_probe|case CANFD_CLK_SEL_80MHZ
3|yfs_deliver_fs_fetch_opaque_acl|case 1
3|yfs_deliver_fs_fetch_opaque_acl|case 2
3|yfs_deliver_fs_fetch_opaque_acl|case 3
3|yfs_deliver_fs_fetch_opaque_acl|case 4
3|yfs_deliver_fs_fetch_opaque_acl|case 5
4|afs_deliver_fs_fetch_acl|case 1
4|afs_deliver_fs_fetch_acl|case 2
4|afs_deliver_fs_fetch_acl|case 3
5|onenand_check_features|case ONENAND_DEVICE_DENSITY_4Gb
6|intel_pmu_init|case INTEL_FAM6_ICELAKE_L
6|intel_pmu_init|case INTEL_FAM6_SKYLAKE_L
7|kfd_get_gpu_cache_info|case IP_VERSION(9, 3, 0)
EOF
j "$fixed | (.notes[0].source // \"\") as \$s |
	select(\$s | test(\"^\\\\s*(case .*|default):\")) |
	\"\(\$p)|\(.function)|\(\$s | sub(\"^\\\\s+\"; \"\") | sub(\":[^:]*\$\"; \"\"))\"" |
	sort >"$tmp/got-labels"
check "each fixed warning's note is at the case label kernel/README.md names" \
	cmp -s <(sort "$tmp/want-labels") "$tmp/got-labels"
diff <(sort "$tmp/want-labels") "$tmp/got-labels" | sed 's/^/# /'

# each fixed warning is in an object whose .c the point's patch changes
bad=0
j '.commits[] | .position as $p | .patch as $f | .warnings_list[] |
	select(.state == "fixed") | "\($p)|\($f)|\(.object)"' >"$tmp/fixed-objects"
while IFS='|' read -r p patch obj; do
	src=$(sed -E 's#[^/]+/\.\./##; s#\.o$#.c#' <<<"$obj")
	grep -qxF "+++ b/$src" "kernel/patches/$patch" && continue
	echo "# point $p: $obj is not built from a file of $patch"
	bad=$((bad + 1))
done <"$tmp/fixed-objects"
check "each fixed warning's object is built from a file its port changes (26)" \
	test "$bad" = 0 -a "$(wc -l <"$tmp/fixed-objects")" = 26
base=$(j '.commits[0].commit')
check "each fixed warning was there at the base" \
	test "$(j "[$fixed | select(.introduced == \"$base\")] | length")" = 26
check "the 26 fixed are the base's 26, each fixed once" \
	cmp -s <(j "$fixed | .identity" | sort) \
	<(j '.commits[0].warnings_list[] | .identity' | sort -u)

# the classifier on the two seed missing breaks
mb() { # POSITION: the verdict and fix of the warning that point fixes
	j ".commits[$1].warnings_list[] | select(.state == \"fixed\") |
		\"\(.verdict)|\(.fix)\""
}
check "drm/amdkfd's missing break (point 7): likely missing break, break;" \
	test "$(mb 7)" = "likely missing break|break;"
check "drm/amdgpu/gfx10's missing break (point 8): likely missing break, break;" \
	test "$(mb 8)" = "likely missing break|break;"
seeds="gfx_v10_0_set_gfx_eop_interrupt_state kfd_get_gpu_cache_info"
check "no other warning of the base is called a missing break" \
	test "$(j '.commits[0].warnings_list[] | select(.verdict == "likely missing break") | .function' | sort | paste -sd' ')" = "$seeds"
"$kwarn" report --db "$db" >"$tmp/report.txt"
# the function of each warning the text report calls a missing break
awk '/^(--|>>) / { f = $0; sub(/.* in \047/, "", f); sub(/\047.*/, "", f) }
	/^   likely missing break, suggest \047break;\047/ { print f }' \
	"$tmp/report.txt" | sort >"$tmp/text-mb"
check "the text report flags those two, with the fix" \
	test "$(paste -sd' ' "$tmp/text-mb")" = "$seeds"

done_tap
