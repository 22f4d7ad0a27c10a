#include "out.h"
#define DATATYPE upd__DATATYPE
#ifdef NK_B
void upd__(DATATYPE x__[4][8], DATATYPE y__[4][8]);
#define W(a, i) a[i]
#else
void upd__(DATATYPE x__[4], DATATYPE y__[4]);
#define W(a, i) &a[i]
#endif
#include "compat_rt.h"
int main(void) {
#ifdef NK_B
    DATATYPE x[4][8], y[4][8];
#else
    DATATYPE x[4], y[4];
#endif
    uint64_t in[4] = {0x11, 0x22, 0x33, 0x44}, want[4] = {0x55, 0x33, 0x22, 0x44};
    for (int i = 0; i < 4; i++) put_word(W(x, i), in[i], 8);
    upd__(x, y);
    for (int i = 0; i < 4; i++) EXPECT(get_word(W(y, i), 8), want[i]);
    for (int i = 0; i < 4; i++) EXPECT(get_word(W(x, i), 8), in[i]);
    DONE();
}
