#include "out.h"
#define DATATYPE pickcol__DATATYPE
#ifdef NK_B
void pickcol__(DATATYPE m__[3][3][4], DATATYPE c__[3][4]);
#define W(a) a
#else
void pickcol__(DATATYPE m__[3][3], DATATYPE c__[3]);
#define W(a) &a
#endif
#include "compat_rt.h"
int main(void) {
#ifdef NK_B
    DATATYPE m[3][3][4], c[3][4];
#else
    DATATYPE m[3][3], c[3];
#endif
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) put_word(W(m[i][j]), 3 * i + j, 4);
    pickcol__(m, c);
    EXPECT(get_word(W(c[0]), 4), 1);
    EXPECT(get_word(W(c[1]), 4), 4);
    EXPECT(get_word(W(c[2]), 4), 7);
    DONE();
}
