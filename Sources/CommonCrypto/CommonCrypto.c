// The two data symbols of CommonSymmetricKeywrap.h; every function is defined in Swift
// (CommonCryptoImplementation).
#include "CommonCrypto.h"

static const uint8_t rfc3394DefaultIV[8] = {0xA6, 0xA6, 0xA6, 0xA6, 0xA6, 0xA6, 0xA6, 0xA6};
const uint8_t *const CCrfc3394_iv = rfc3394DefaultIV;
const size_t CCrfc3394_ivLen = sizeof(rfc3394DefaultIV);
