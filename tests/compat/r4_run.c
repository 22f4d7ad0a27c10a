#include "out.h"
#define DATATYPE run__DATATYPE
#ifdef NK_B
void run__(DATATYPE x__[8], DATATYPE key__[8], DATATYPE y__[8]);
#else
void run__(DATATYPE x__, DATATYPE key__, DATATYPE* y__);
#endif
#include "compat_rt.h"
int main(void) {
#ifdef NK_B
    DATATYPE x[8], key[8], y[8];
    put_bits(x, 0x5a, 8); put_bits(key, 0x35, 8);
    run__(x, key, y);
    EXPECT(get_bits(y, 8), 0xe3);
#else
    DATATYPE y;
    run__(put(0x5a, 8), put(0x35, 8), &y);
    EXPECT(get(&y, 8), 0xe3);
#endif
    DONE();
}
