#include "out.h"
#define DATATYPE addk__DATATYPE
void addk__(DATATYPE x__[2], uint32_t k__[2], DATATYPE y__[2]);
#include "compat_rt.h"
int main(void) {
    DATATYPE x[2], y[2];
    uint32_t k[2] = {0x80000001u, 7};
    x[0] = put(0x7fffffff, 32); x[1] = put(0x10, 32);
    addk__(x, k, y);
    EXPECT(get(&y[0], 32), 0);
    EXPECT(get(&y[1], 32), 0x17);
    DONE();
}
