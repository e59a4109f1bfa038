int two(int m);
int two(int m) { return m + 1; }
