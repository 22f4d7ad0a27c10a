#include "out.h"
#define DATATYPE mixh__DATATYPE
void mixh__(DATATYPE a__, DATATYPE b__, DATATYPE* c__, DATATYPE* d__);
#include "compat_rt.h"
_Static_assert(sizeof(DATATYPE) == 4, "-bits-per-reg 32: DATATYPE is uint32_t");
static unsigned rol8(unsigned x, int k) { return ((x << k) | (x >> (8 - k))) & 0xff; }
int main(void) {
    DATATYPE c, d;
    mixh__(put(0xc3, 8), put(0x96, 8), &c, &d);
    EXPECT(get(&c, 8), rol8(0xc3, 3) ^ 0x5a);
    EXPECT(get(&d, 8), rol8(0x96, 7) & (~0xc3u & 0xff));
    DONE();
}
