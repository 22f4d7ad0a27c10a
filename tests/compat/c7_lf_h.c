#include "out.h"
#define DATATYPE hk__DATATYPE
void hk__(DATATYPE x__, uint16_t k__[2], DATATYPE* y__);
#include "compat_rt.h"
static unsigned rol16(unsigned x, int k) { return ((x << k) | (x >> (16 - k))) & 0xffff; }
int main(void) {
    DATATYPE y;
    uint16_t k[2] = { 0xbeef, 0x1357 };
    hk__(put(0x1234, 16), k, &y);
    EXPECT(get(&y, 16), rol16(0x1234 ^ 0xbeef, 4) ^ 0x1357);
    DONE();
}
