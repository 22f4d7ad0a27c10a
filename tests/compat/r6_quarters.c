#include "out.h"
#define DATATYPE rot_groups__DATATYPE
void rot_groups__(DATATYPE a__, DATATYPE* b__, DATATYPE* c__);
#include "compat_rt.h"
int main(void) {
    DATATYPE b, c;
    rot_groups__(put(0x1234, 16), &b, &c);
    EXPECT(get(&b, 16), 0x2341);
    EXPECT(get(&c, 16), 0x2341);
    DONE();
}
