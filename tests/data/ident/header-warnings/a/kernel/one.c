#include "../include/h.h"
int one(int m);
int one(int m) { return pick(m); }
