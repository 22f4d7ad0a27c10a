#include "out.h"
#define DATATYPE mix6__DATATYPE
void mix6__(DATATYPE a__, DATATYPE b__, DATATYPE* c__);
#include "compat_rt.h"
#if defined(NK_STD) && defined(NK_V)
_Static_assert(sizeof(DATATYPE) == 8, "usubac: DATATYPE is uint64_t for 6-bit words on std -V");
#endif
int main(void) {
    DATATYPE c;
    mix6__(put(0x2b, 6), put(0x1d, 6), &c);
    EXPECT(get(&c, 6), (0x2b ^ 0x1d) & ~0x2b & 0x3f);
    DONE();
}
