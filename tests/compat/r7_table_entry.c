#include "out.h"
#define DATATYPE rect__DATATYPE
void rect__(DATATYPE a0__, DATATYPE a1__, DATATYPE a2__, DATATYPE a3__, DATATYPE* b0__, DATATYPE* b1__, DATATYPE* b2__, DATATYPE* b3__);
#include "compat_rt.h"
int main(void) {
    /* compat.md C2: read MSB first, usubac maps 0..15 to these */
    static const int want[16] = { 6, 13, 8, 1, 3, 12, 14, 2, 10, 0, 7, 15, 5, 11, 9, 4 };
    for (int i = 0; i < 16; i++) {
        DATATYPE b0, b1, b2, b3;
        /* a 1-bit word fills the register in -H, and is one bit per instance in -B */
        rect__(nk_bcast_bit((i >> 3) & 1), nk_bcast_bit((i >> 2) & 1), nk_bcast_bit((i >> 1) & 1), nk_bcast_bit(i & 1), &b0, &b1, &b2, &b3);
        EXPECT((uint64_t)((nk_read_bit(&b0) << 3) | (nk_read_bit(&b1) << 2) | (nk_read_bit(&b2) << 1) | nk_read_bit(&b3)), (uint64_t)want[i]);
    }
    DONE();
}
