#include "out.h"
#define DATATYPE f__DATATYPE
void f__(DATATYPE x__[4], DATATYPE k__[4], DATATYPE y__[4]);
#include "compat_rt.h"
int main(void) {
    static const int want[16] = { 6, 13, 8, 1, 3, 12, 14, 2, 10, 0, 7, 15, 5, 11, 9, 4 };
    for (int i = 0; i < 16; i++) {
        DATATYPE x[4], k[4], y[4];
        for (int j = 0; j < 4; j++) { x[j] = nk_bcast_bit((i >> (3 - j)) & 1); k[j] = nk_bcast_bit((0x9 >> (3 - j)) & 1); }
        f__(x, k, y);
        int r = 0;
        for (int j = 0; j < 4; j++) r = (r << 1) | nk_read_bit(&y[j]);
        EXPECT((uint64_t)r, (uint64_t)(want[i] ^ 0x9 ^ 0xf));
    }
    DONE();
}
