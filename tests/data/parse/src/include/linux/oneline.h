static inline int oneline_hdr(int s) { return s << 40; }
