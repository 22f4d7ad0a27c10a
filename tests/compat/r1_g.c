#include "out.h"
#define DATATYPE g__DATATYPE
#ifdef NK_B
void g__(DATATYPE p__[8], DATATYPE q__[8], DATATYPE r__[8]);
#else
void g__(DATATYPE p__, DATATYPE q__, DATATYPE* r__);
#endif
#include "compat_rt.h"
int main(void) {
#ifdef NK_B
    DATATYPE p[8], q[8], r[8];
    put_bits(p, 0x3c, 8); put_bits(q, 0x55, 8);
    g__(p, q, r);
    EXPECT(get_bits(r, 8), 0x69);
#else
    DATATYPE r;
    g__(put(0x3c, 8), put(0x55, 8), &r);
    EXPECT(get(&r, 8), 0x69);
#endif
    DONE();
}
