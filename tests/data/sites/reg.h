#define REG_SET(r, v) do { (r) = (v); } while (0)
