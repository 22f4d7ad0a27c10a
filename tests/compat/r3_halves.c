#include "out.h"
#define DATATYPE bits__DATATYPE
void bits__(DATATYPE a__[2][8], DATATYPE y__[2][8]);
#include "compat_rt.h"
int main(void) {
    DATATYPE a[2][8], y[2][8];
    uint64_t want[2] = {0x40, 0x1f};
    for (int i = 0; i < 2; i++) for (int j = 0; j < 8; j++) put_word(&a[i][j], 0, 1);
    bits__(a, y);
    for (int i = 0; i < 2; i++) {
        uint64_t v = 0;
        for (int j = 0; j < 8; j++) v = v << 1 | get_word(&y[i][j], 1);
        EXPECT(v, want[i]);
    }
    DONE();
}
