#include "out.h"
#define DATATYPE mix__DATATYPE
#ifdef NK_B
void mix__(DATATYPE a__[8], DATATYPE b__[8], DATATYPE c__[8]);
#else
void mix__(DATATYPE a__, DATATYPE b__, DATATYPE* c__);
#endif
#include "compat_rt.h"
int main(void) {
#ifdef NK_B
    DATATYPE a[8], b[8], c[8];
    put_bits(a, 0x3c, 8); put_bits(b, 0x55, 8);
    mix__(a, b, c);
    EXPECT(get_bits(c, 8), 0x69);
    EXPECT(get_bits(a, 8), 0x3c);   /* the caller's input is not modified */
#else
    DATATYPE c;
    mix__(put(0x3c, 8), put(0x55, 8), &c);
    EXPECT(get(&c, 8), 0x69);
#endif
    DONE();
}
