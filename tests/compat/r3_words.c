#include "out.h"
#define DATATYPE words__DATATYPE
#ifdef NK_B
void words__(DATATYPE a__[2][2][8], DATATYPE b__[8], DATATYPE y__[2][2][8]);
#define W(a) a
#else
void words__(DATATYPE a__[2][2], DATATYPE b__, DATATYPE y__[2][2]);
#define W(a) &a
#endif
#include "compat_rt.h"
int main(void) {
#ifdef NK_B
    DATATYPE a[2][2][8], b[8], y[2][2][8];
    put_bits(b, 0x5a, 8);
#define B b
#else
    DATATYPE a[2][2], b, y[2][2];
    b = put(0x5a, 8);
#define B b
#endif
    uint64_t want[4] = {0x5a ^ 0x11, 7 ^ 0x22, 9 ^ 0x33, 0xff ^ 0x44};
    for (int i = 0; i < 4; i++) put_word(W(a[i / 2][i % 2]), 0x11 * (uint64_t)(i + 1), 8);
    words__(a, B, y);
    for (int i = 0; i < 4; i++) EXPECT(get_word(W(y[i / 2][i % 2]), 8), want[i]);
    DONE();
}
