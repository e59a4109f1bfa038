#include <linux/oneline.h>

static const int oneline_table[] = { 1, 2 };
static int oneline_a(int x) { return x << 40; }
static inline unsigned long oneline_b(unsigned long v) { int unused; return v; }
static int oneline_top = 1 << 40;

int oneline_use(int x)
{
	return oneline_a(x) + (int)oneline_b(2) + oneline_hdr(x) + oneline_table[0] + oneline_top;
}
