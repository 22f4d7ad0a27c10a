#include "out.h"
#define DATATYPE xk__DATATYPE
void xk__(DATATYPE x__[8], uint8_t k__, DATATYPE y__[8]);
#include "compat_rt.h"
int main(void) {
    DATATYPE x[8], y[8];
    put_bits(x, 0x0f, 8);
    xk__(x, 0x3c, y);
    EXPECT(get_bits(y, 8), 0x33);
    DONE();
}
