#include "out.h"
#define DATATYPE pick__DATATYPE
#ifdef NK_B
void pick__(DATATYPE m__[3][4][8], DATATYPE col__[3][8], DATATYPE corners__[2][8], DATATYPE folded__[4][8], DATATYPE t__[3][4][8]);
#define W(a) a
#else
void pick__(DATATYPE m__[3][4], DATATYPE col__[3], DATATYPE corners__[2], DATATYPE folded__[4], DATATYPE t__[3][4]);
#define W(a) &a
#endif
#include "compat_rt.h"
int main(void) {
#ifdef NK_B
    DATATYPE m[3][4][8], col[3][8], corners[2][8], folded[4][8], t[3][4][8];
#else
    DATATYPE m[3][4], col[3], corners[2], folded[4], t[3][4];
#endif
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) put_word(W(m[i][j]), 0x10 * i + j, 8);
    pick__(m, col, corners, folded, t);
    EXPECT(get_word(W(col[0]), 8), 0x01);
    EXPECT(get_word(W(col[1]), 8), 0x11);
    EXPECT(get_word(W(col[2]), 8), 0x21);
    EXPECT(get_word(W(corners[0]), 8), 0x23);
    EXPECT(get_word(W(corners[1]), 8), 0x03);
    for (int j = 0; j < 4; j++) EXPECT(get_word(W(folded[j]), 8), 0x30 + j);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) EXPECT(get_word(W(t[i][j]), 8), 0x10 * (2 - i) + j);
    DONE();
}
