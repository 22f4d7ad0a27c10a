#include "out.h"
#define DATATYPE spread__DATATYPE
void spread__(DATATYPE a__[4], DATATYPE y__[4]);
#include "compat_rt.h"
_Static_assert(sizeof(DATATYPE) == 8, "usubac: DATATYPE is uint64_t for 1-bit words on std -V");
int main(void) {
    DATATYPE a[4], y[4];
    /* a = 1011: y = (a[3]^a[0], a[0]^a[1], a[1]^a[2], a[2]^a[3]) = (0, 1, 1, 0) */
    uint64_t in[4] = {1, 0, 1, 1}, want[4] = {0, 1, 1, 0};
    for (int i = 0; i < 4; i++) a[i] = put(in[i], 1);
    spread__(a, y);
    for (int i = 0; i < 4; i++) EXPECT(get(&y[i], 1), want[i]);
    DONE();
}
