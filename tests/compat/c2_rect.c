#include "out.h"
#define DATATYPE f__DATATYPE
void f__(DATATYPE x__[4], DATATYPE y__[4]);
#include "compat_rt.h"
int main(void) {
#ifdef NK_NATIVE
    static const int want[16] = {6, 5, 12, 10, 1, 14, 7, 9, 11, 0, 3, 13, 8, 15, 4, 2};
#else
    static const int want[16] = {6, 13, 8, 1, 3, 12, 14, 2, 10, 0, 7, 15, 5, 11, 9, 4};
#endif
    DATATYPE x[4], y[4];
    for (int v = 0; v < 16; v++) {
        for (int j = 0; j < 4; j++) put_word(&x[j], (uint64_t)(v >> (3 - j)) & 1, 1);
        f__(x, y);
        uint64_t r = 0;
        for (int j = 0; j < 4; j++) r = r << 1 | get_word(&y[j], 1);
        EXPECT(r, (uint64_t)want[v]);
    }
    DONE();
}
