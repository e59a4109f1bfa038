// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the parser: the input is fed to parse_feed() in
 * chunks whose sizes come from the input itself, then parse_finish() and
 * parse_free().  Every emitted string is walked so that ASan sees any
 * read past its end.  Build: make build/fuzz-parse; run: make fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(const char *s)
{
	return s ? strlen(s) : 0;
}

static void fuzz_emit(void *ctx, const struct diag *d)
{
	size_t *total = ctx;

	*total += walk(d->file) + walk(d->function) + walk(d->option) +
		  walk(d->message) + walk(d->source) + walk(d->include_chain) +
		  walk(d->object) + walk(d->inline_chain);
	for (size_t i = 0; i < d->nr_notes; i++)
		*total += walk(d->notes[i].file) + walk(d->notes[i].message) +
			  walk(d->notes[i].source);
	if (diag_kind_name(d->kind)[0] == '\0')
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t total = 0, off = 0;
	struct parser *p;
	uint32_t seed = 2166136261u;

	if (size < 1)
		return 0;
	/* the first byte picks a strip prefix and seeds the chunk sizes */
	seed ^= data[0];
	p = parse_new(fuzz_emit, &total);
	if (data[0] & 1)
		parse_add_strip_prefix(p, "/build/linux/");
	if (data[0] & 2)
		parse_set_single_stream(p);
	data++;
	size--;
	/* the input as C source: the function around some line */
	free(diag_function_from_source((const char *)data, size,
				       (long)(seed % 300) + 1));
	while (off < size) {
		size_t n;

		seed = seed * 1103515245u + 12345u;
		n = (seed >> 16) % 257 + 1;
		if (n > size - off)
			n = size - off;
		parse_feed(p, (const char *)data + off, n);
		off += n;
	}
	parse_finish(p);
	if (parse_get_stats(p)->diags > parse_get_stats(p)->lines + 1)
		__builtin_trap();
	for (size_t i = 0; parse_unparsed_line(p, i); i++)
		total += walk(parse_unparsed_line(p, i));
	parse_free(p);
	return 0;
}
