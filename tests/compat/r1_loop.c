#include "out.h"
#define DATATYPE h__DATATYPE
#ifdef NK_B
void h__(DATATYPE k__[4][8], DATATYPE x__[8], DATATYPE y__[8]);
#else
void h__(DATATYPE k__[4], DATATYPE x__, DATATYPE* y__);
#endif
#include "compat_rt.h"
int main(void) {
    /* k = (1,2,4,8) -> prefix xor (1,3,7,15) -> k[0..1] swapped (3,1,..): y = x^3^15^1 */
#ifdef NK_B
    DATATYPE k[4][8], x[8], y[8];
    for (int i = 0; i < 4; i++) put_bits(k[i], 1u << i, 8);
    put_bits(x, 0xa0, 8);
    h__(k, x, y);
    EXPECT(get_bits(y, 8), 0xa0 ^ 3 ^ 15 ^ 1);
#else
    DATATYPE k[4], y;
    for (int i = 0; i < 4; i++) k[i] = put(1u << i, 8);
    h__(k, put(0xa0, 8), &y);
    EXPECT(get(&y, 8), 0xa0 ^ 3 ^ 15 ^ 1);
#endif
    DONE();
}
