#include "out.h"
#define DATATYPE addk2__DATATYPE
void addk2__(DATATYPE x__, DATATYPE x____2, DATATYPE z__, DATATYPE z____2, DATATYPE k__,
             DATATYPE *y__, DATATYPE *y____2, DATATYPE *w__, DATATYPE *w____2);
#include "compat_rt.h"
int main(void) {
    DATATYPE y, y2, w, w2;
    /* copy 1: x = 5, z = 9; copy 2: x = 0x100, z = 3; shared k = 0x11 */
    addk2__(put(5, 32), put(0x100, 32), put(9, 32), put(3, 32), put(0x11, 32), &y, &y2, &w, &w2);
    EXPECT(get(&y, 32), 0xb0);    /* (5 + 0x11) <<< 3 */
    EXPECT(get(&y2, 32), 0x888);  /* (0x100 + 0x11) <<< 3 */
    EXPECT(get(&w, 32), 0xa8);    /* 9 ^ 0x11 ^ 0xb0 */
    EXPECT(get(&w2, 32), 0x89a);  /* 3 ^ 0x11 ^ 0x888 */
    DONE();
}
