void mj_take(int *p);

#define MJ_SHIFT(x) ((x) << 40)
