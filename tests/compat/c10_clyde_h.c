#include "out.h"
#define DATATYPE g__DATATYPE
void g__(DATATYPE a__[4], DATATYPE b__[4]);
#include "compat_rt.h"
int main(void) {
#ifdef NK_NATIVE
    static const int want[16] = {0, 8, 1, 15, 2, 10, 7, 9, 4, 13, 5, 6, 14, 3, 11, 12};
#else
    static const int want[16] = {0, 2, 4, 7, 8, 10, 14, 13, 1, 11, 5, 12, 15, 6, 9, 3};
#endif
    /* bit position p of the four words holds x = p (a[0] the MSB) */
    DATATYPE a[4], b[4];
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int p = 0; p < 16; p++) w |= (uint64_t)((p >> (3 - i)) & 1) << (15 - p);
        a[i] = put(w, 16);
    }
    g__(a, b);
    uint64_t o[4];
    for (int i = 0; i < 4; i++) o[i] = get(&b[i], 16);
    for (int p = 0; p < 16; p++) {
        int y = 0;
        for (int i = 0; i < 4; i++) y = y << 1 | (int)((o[i] >> (15 - p)) & 1);
        EXPECT((uint64_t)y, (uint64_t)want[p]);
    }
    DONE();
}
