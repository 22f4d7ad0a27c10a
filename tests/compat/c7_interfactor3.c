#include "out.h"
#define DATATYPE run__DATATYPE
void run__(DATATYPE s__[2], DATATYPE s____2[2], DATATYPE s____3[2], DATATYPE key__[4],
           DATATYPE t__[2], DATATYPE t____2[2], DATATYPE t____3[2]);
#include "compat_rt.h"
int main(void) {
    /* expected values computed independently (Python model of the Usuba source) */
    DATATYPE s1[2], s2[2], s3[2], key[4], t1[2], t2[2], t3[2];
    s1[0] = put(0x0001, 16); s1[1] = put(0x0002, 16);
    s2[0] = put(0xffff, 16); s2[1] = put(0x8000, 16);
    s3[0] = put(0x1357, 16); s3[1] = put(0x2468, 16);
    key[0] = put(0x1234, 16);
    key[1] = put(0x0f0f, 16);
    key[2] = put(0xbeef, 16);
    key[3] = put(0x0001, 16);
    run__(s1, s2, s3, key, t1, t2, t3);
    EXPECT(get(&t1[0], 16), 0x595f);
    EXPECT(get(&t1[1], 16), 0xbf56);
    EXPECT(get(&t2[0], 16), 0x86d9);
    EXPECT(get(&t2[1], 16), 0xe14f);
    EXPECT(get(&t3[0], 16), 0x7db7);
    EXPECT(get(&t3[1], 16), 0xb31a);
    DONE();
}
