#include "out.h"
#define DATATYPE spread__DATATYPE
void spread__(DATATYPE a__[4], DATATYPE y__[4]);
#include "compat_rt.h"
int main(void) {
    DATATYPE a[4], y[4];
    uint64_t in[4] = {1, 0, 1, 1}, want[4] = {0, 1, 1, 0};
    for (int i = 0; i < 4; i++) put_word(&a[i], in[i], 1);
    spread__(a, y);
    for (int i = 0; i < 4; i++) EXPECT(get_word(&y[i], 1), want[i]);
    DONE();
}
