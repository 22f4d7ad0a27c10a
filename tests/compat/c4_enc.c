#include "out.h"
#define DATATYPE enc__DATATYPE
void enc__(DATATYPE pt__[64], DATATYPE rk__[5][64], DATATYPE ct__[64]);
#include "compat_rt.h"
static uint64_t rotl(uint64_t x, int k) { return x << k | x >> (64 - k); }
static void put64(DATATYPE *x, uint64_t v) { for (int j = 0; j < 64; j++) put_word(&x[j], (v >> (63 - j)) & 1, 1); }
static uint64_t get64(const DATATYPE *x) { uint64_t v = 0; for (int j = 0; j < 64; j++) v = v << 1 | get_word(&x[j], 1); return v; }
int main(void) {
    DATATYPE pt[64], rk[5][64], ct[64];
    uint64_t p = 0x0123456789abcdefULL, k[5], s;
    for (int i = 0; i < 5; i++) { k[i] = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1); put64(rk[i], k[i]); }
    put64(pt, p);
    enc__(pt, rk, ct);
    s = p;
    for (int i = 0; i < 5; i++) s = rotl(s, 7) ^ k[i];
    EXPECT(get64(ct), s);
    DONE();
}
