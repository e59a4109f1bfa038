# The nightly tests' synthetic uploads (sourced, bash).
#
# probe_src NAME FIRST-CASE VALUE: a function with a missing break, to
# append to a kernel source file.
# probe_upload DIR NAME...: DIR/linux-source-6.1.tar.gz, the packaged 6.1
# with one probe per NAME (first cases 1, 3, 5, ...; values 10, 30, 50, ...)
# appended to kernel/panic.c, the same bytes every time, so that its import
# and build stay in the cache from one test (and one make check) to the next.
# Sets probe_line to the line of the first probe's falling statement.

probe_src() {
	cat <<PROBE

int $1(int cmd);
int $1(int cmd)
{
	int r = 0;

	switch (cmd) {
	case $2:
		r = $3;
	case $(($2 + 1)):
		r += 1;
		break;
	}
	return r;
}
PROBE
}

probe_upload() {
	local dir=$1 unpack i=1
	shift
	unpack=$(mktemp -d)
	mkdir -p "$dir"
	tar -xf /usr/src/linux-source-6.1.tar.xz -C "$unpack"
	for name in "$@"; do
		probe_src "$name" "$i" "$((i * 10))" \
			>>"$unpack/linux-source-6.1/kernel/panic.c"
		i=$((i + 2))
	done
	probe_line=$(grep -n '		r = 10;' \
		"$unpack/linux-source-6.1/kernel/panic.c" | cut -d: -f1)
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -c \
		-C "$unpack" linux-source-6.1 |
		gzip -n -1 >"$dir/linux-source-6.1.tar.gz"
	rm -rf "$unpack"
}
