#include "out.h"
#define DATATYPE apply2__DATATYPE
#ifdef NK_B
void apply2__(DATATYPE a__[2][4], DATATYPE b__[2][4]);
#define W(a) a
#else
void apply2__(DATATYPE a__[2], DATATYPE b__[2]);
#define W(a) &a
#endif
#include "compat_rt.h"
int main(void) {
    static const int sq[16] = {0, 1, 4, 9, 3, 12, 5, 14, 8, 2, 13, 7, 15, 6, 11, 10};
#ifdef NK_B
    DATATYPE a[2][4], b[2][4];
#else
    DATATYPE a[2], b[2];
#endif
    for (int x = 0; x < 16; x++) {
        int z = (x * 7 + 3) & 15;
        put_word(W(a[0]), (uint64_t)x, 4); put_word(W(a[1]), (uint64_t)z, 4);
        apply2__(a, b);
        EXPECT(get_word(W(b[0]), 4), (uint64_t)sq[x]);
        EXPECT(get_word(W(b[1]), 4), (uint64_t)(sq[z] ^ x));
    }
    DONE();
}
