#include "out.h"
#define DATATYPE bycol__DATATYPE
#ifdef NK_B
void bycol__(DATATYPE m__[3][3][4], DATATYPE n__[3][3][4]);
#define W(a) a
#else
void bycol__(DATATYPE m__[3][3], DATATYPE n__[3][3]);
#define W(a) &a
#endif
#include "compat_rt.h"
int main(void) {
#ifdef NK_B
    DATATYPE m[3][3][4], n[3][3][4];
#else
    DATATYPE m[3][3], n[3][3];
#endif
    uint64_t want[3][3] = {{3, 4, 5}, {6, 7, 8}, {3, 5, 7}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) put_word(W(m[i][j]), 3 * i + j, 4);
    bycol__(m, n);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) EXPECT(get_word(W(n[i][j]), 4), want[i][j]);
    DONE();
}
