#include "out.h"
#define DATATYPE maj__DATATYPE
void maj__(DATATYPE a__, DATATYPE b__, DATATYPE c__, DATATYPE* m__);
#include "compat_rt.h"
_Static_assert(sizeof(DATATYPE) == 2, "-bits-per-reg 16: DATATYPE is uint16_t");
int main(void) {
    /* bitwise majority over whole registers: fill with distinct byte patterns */
    DATATYPE a, b, c, m;
    unsigned char x[sizeof(DATATYPE)], y[sizeof(DATATYPE)], z[sizeof(DATATYPE)], r[sizeof(DATATYPE)];
    for (unsigned i = 0; i < sizeof(DATATYPE); i++) { x[i] = (unsigned char)(0x3c + 7 * i); y[i] = (unsigned char)(0x55 ^ i); z[i] = (unsigned char)(0xa9 + 13 * i); }
    memcpy(&a, x, sizeof a); memcpy(&b, y, sizeof b); memcpy(&c, z, sizeof c);
    maj__(a, b, c, &m);
    memcpy(r, &m, sizeof r);
    for (unsigned i = 0; i < sizeof(DATATYPE); i++) EXPECT(r[i], (x[i] & y[i]) ^ (x[i] & z[i]) ^ (y[i] & z[i]));
    DONE();
}
