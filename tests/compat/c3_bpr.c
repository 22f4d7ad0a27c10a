#include "out.h"
#define DATATYPE g__DATATYPE
void g__(DATATYPE p__[8], DATATYPE q__[8], DATATYPE r__[8]);
#include "compat_rt.h"
_Static_assert(sizeof(DATATYPE) == 4, "-bits-per-reg 32: DATATYPE is uint32_t");
int main(void) {
    DATATYPE p[8], q[8], r[8];
    put_bits(p, 0x3c, 8); put_bits(q, 0x55, 8);
    g__(p, q, r);
    EXPECT(get_bits(r, 8), (0x3c ^ 0x55) & 0xaa);
    DONE();
}
