#include "out.h"
#define DATATYPE f__DATATYPE
void f__(DATATYPE a__, DATATYPE b__, DATATYPE* c__);
#include "compat_rt.h"
_Static_assert(sizeof(DATATYPE) == 8, "usubac: DATATYPE is uint64_t for 12-bit words on std -V");
int main(void) {
    DATATYPE c;
    f__(put(0xabc, 12), put(0x123, 12), &c);
    EXPECT(get(&c, 12), 0xabc ^ 0x123);
    DONE();
}
