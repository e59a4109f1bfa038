void takes_int(int *p);
