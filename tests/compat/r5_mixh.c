#include "out.h"
#define DATATYPE mixh__DATATYPE
void mixh__(DATATYPE x__[2], DATATYPE y__[2]);
#include "compat_rt.h"
int main(void) {
    DATATYPE x[2], y[2];
    x[0] = put(0x12f0, 16); x[1] = put(0x0101, 16);
    mixh__(x, y);
    EXPECT(get(&y[0], 16), 0xf012 ^ 0x0101);
    EXPECT(get(&y[1], 16), 0x12f0);
    DONE();
}
