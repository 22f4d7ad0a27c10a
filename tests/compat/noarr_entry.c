#include "out.h"
#define DATATYPE sw__DATATYPE
void sw__(DATATYPE x__0, DATATYPE x__1, DATATYPE* y__0, DATATYPE* y__1);
#include "compat_rt.h"
int main(void) {
    DATATYPE y0, y1;
    sw__(put(0x1234, 16), put(0xff00, 16), &y0, &y1);
    EXPECT(get(&y0, 16), 0xff00);
    EXPECT(get(&y1, 16), 0x1234 ^ 0xff00);
    DONE();
}
