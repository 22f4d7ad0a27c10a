#include "out.h"
#define DATATYPE flip__DATATYPE
void flip__(DATATYPE x__[8], DATATYPE y__[8]);
#include "compat_rt.h"
int main(void) {
    DATATYPE x[8], y[8];
    put_bits(x, 0x2d, 8);
    flip__(x, y);
    EXPECT(get_bits(y, 8), 0x4b);   /* ~bitreverse(0x2d) = ~0xb4 */
    DONE();
}
