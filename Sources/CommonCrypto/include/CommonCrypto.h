// CommonCrypto's public C API as the iOS SDK declares it (CommonCryptoError.h,
// CommonDigest.h, CommonHMAC.h, CommonCryptor.h, CommonKeyDerivation.h,
// CommonSymmetricKeywrap.h, CommonRandom.h): the same names, values and prototypes, so Swift
// imports them as it does Apple's module, with C's pointer conversions. The functions are
// defined in Swift (the CommonCryptoImplementation module, over swift-crypto); see
// docs/CommonCrypto.md for what is implemented and how it differs.
#ifndef TOUCHSTONE_COMMONCRYPTO_H
#define TOUCHSTONE_COMMONCRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: CommonCryptoError.h

enum {
    kCCSuccess = 0,
    kCCParamError = -4300,
    kCCBufferTooSmall = -4301,
    kCCMemoryFailure = -4302,
    kCCAlignmentError = -4303,
    kCCDecodeError = -4304,
    kCCUnimplemented = -4305,
    kCCOverflow = -4306,
    kCCRNGFailure = -4307,
    kCCUnspecifiedError = -4308,
    kCCCallSequenceError = -4309,
    kCCKeySizeError = -4310,
    kCCInvalidKey = -4311,
};
typedef int32_t CCStatus;
typedef int32_t CCCryptorStatus;

// MARK: CommonDigest.h

typedef uint32_t CC_LONG;
typedef uint64_t CC_LONG64;

#define CC_MD2_DIGEST_LENGTH 16
#define CC_MD2_BLOCK_BYTES 64
#define CC_MD2_BLOCK_LONG (CC_MD2_BLOCK_BYTES / sizeof(CC_LONG))
#define CC_MD4_DIGEST_LENGTH 16
#define CC_MD4_BLOCK_BYTES 64
#define CC_MD4_BLOCK_LONG (CC_MD4_BLOCK_BYTES / sizeof(CC_LONG))
#define CC_MD5_DIGEST_LENGTH 16
#define CC_MD5_BLOCK_BYTES 64
#define CC_MD5_BLOCK_LONG (CC_MD5_BLOCK_BYTES / sizeof(CC_LONG))
#define CC_SHA1_DIGEST_LENGTH 20
#define CC_SHA1_BLOCK_BYTES 64
#define CC_SHA1_BLOCK_LONG (CC_SHA1_BLOCK_BYTES / sizeof(CC_LONG))
#define CC_SHA224_DIGEST_LENGTH 28
#define CC_SHA224_BLOCK_BYTES 64
#define CC_SHA256_DIGEST_LENGTH 32
#define CC_SHA256_BLOCK_BYTES 64
#define CC_SHA384_DIGEST_LENGTH 48
#define CC_SHA384_BLOCK_BYTES 128
#define CC_SHA512_DIGEST_LENGTH 64
#define CC_SHA512_BLOCK_BYTES 128

// Apple's layouts. Here the first words hold a handle to the digest in progress.
typedef struct CC_MD2state_st {
    int num;
    unsigned char data[CC_MD2_DIGEST_LENGTH];
    CC_LONG cksm[CC_MD2_BLOCK_LONG];
    CC_LONG state[CC_MD2_BLOCK_LONG];
} CC_MD2_CTX;

typedef struct CC_MD4state_st {
    CC_LONG A, B, C, D;
    CC_LONG Nl, Nh;
    CC_LONG data[CC_MD4_BLOCK_LONG];
    uint32_t num;
} CC_MD4_CTX;

typedef struct CC_MD5state_st {
    CC_LONG A, B, C, D;
    CC_LONG Nl, Nh;
    CC_LONG data[16];
    int num;
} CC_MD5_CTX;

typedef struct CC_SHA1state_st {
    CC_LONG h0, h1, h2, h3, h4;
    CC_LONG Nl, Nh;
    CC_LONG data[16];
    int num;
} CC_SHA1_CTX;

typedef struct CC_SHA256state_st {
    CC_LONG count[2];
    CC_LONG hash[8];
    CC_LONG wbuf[16];
} CC_SHA256_CTX;

typedef struct CC_SHA512state_st {
    CC_LONG64 count[2];
    CC_LONG64 hash[8];
    CC_LONG64 wbuf[16];
} CC_SHA512_CTX;

unsigned char *CC_MD2(const void *data, CC_LONG len, unsigned char *md)
    __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD2_Init(CC_MD2_CTX *c) __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD2_Update(CC_MD2_CTX *c, const void *data, CC_LONG len) __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD2_Final(unsigned char *md, CC_MD2_CTX *c) __attribute__((availability(ios, deprecated = 13.0)));

unsigned char *CC_MD4(const void *data, CC_LONG len, unsigned char *md)
    __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD4_Init(CC_MD4_CTX *c) __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD4_Update(CC_MD4_CTX *c, const void *data, CC_LONG len) __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD4_Final(unsigned char *md, CC_MD4_CTX *c) __attribute__((availability(ios, deprecated = 13.0)));

unsigned char *CC_MD5(const void *data, CC_LONG len, unsigned char *md)
    __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD5_Init(CC_MD5_CTX *c) __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD5_Update(CC_MD5_CTX *c, const void *data, CC_LONG len) __attribute__((availability(ios, deprecated = 13.0)));
int CC_MD5_Final(unsigned char *md, CC_MD5_CTX *c) __attribute__((availability(ios, deprecated = 13.0)));

unsigned char *CC_SHA1(const void *data, CC_LONG len, unsigned char *md);
int CC_SHA1_Init(CC_SHA1_CTX *c);
int CC_SHA1_Update(CC_SHA1_CTX *c, const void *data, CC_LONG len);
int CC_SHA1_Final(unsigned char *md, CC_SHA1_CTX *c);

unsigned char *CC_SHA224(const void *data, CC_LONG len, unsigned char *md);
int CC_SHA224_Init(CC_SHA256_CTX *c);
int CC_SHA224_Update(CC_SHA256_CTX *c, const void *data, CC_LONG len);
int CC_SHA224_Final(unsigned char *md, CC_SHA256_CTX *c);

unsigned char *CC_SHA256(const void *data, CC_LONG len, unsigned char *md);
int CC_SHA256_Init(CC_SHA256_CTX *c);
int CC_SHA256_Update(CC_SHA256_CTX *c, const void *data, CC_LONG len);
int CC_SHA256_Final(unsigned char *md, CC_SHA256_CTX *c);

unsigned char *CC_SHA384(const void *data, CC_LONG len, unsigned char *md);
int CC_SHA384_Init(CC_SHA512_CTX *c);
int CC_SHA384_Update(CC_SHA512_CTX *c, const void *data, CC_LONG len);
int CC_SHA384_Final(unsigned char *md, CC_SHA512_CTX *c);

unsigned char *CC_SHA512(const void *data, CC_LONG len, unsigned char *md);
int CC_SHA512_Init(CC_SHA512_CTX *c);
int CC_SHA512_Update(CC_SHA512_CTX *c, const void *data, CC_LONG len);
int CC_SHA512_Final(unsigned char *md, CC_SHA512_CTX *c);

// MARK: CommonHMAC.h

enum {
    kCCHmacAlgSHA1,
    kCCHmacAlgMD5,
    kCCHmacAlgSHA256,
    kCCHmacAlgSHA384,
    kCCHmacAlgSHA512,
    kCCHmacAlgSHA224,
};
typedef uint32_t CCHmacAlgorithm;

#define CC_HMAC_CONTEXT_SIZE 96
typedef struct {
    uint32_t ctx[CC_HMAC_CONTEXT_SIZE];
} CCHmacContext;

void CCHmacInit(CCHmacContext *ctx, CCHmacAlgorithm algorithm, const void *key, size_t keyLength);
void CCHmacUpdate(CCHmacContext *ctx, const void *data, size_t dataLength);
void CCHmacFinal(CCHmacContext *ctx, void *macOut);
void CCHmac(CCHmacAlgorithm algorithm, const void *key, size_t keyLength, const void *data, size_t dataLength,
            void *macOut);

// MARK: CommonCryptor.h

typedef struct _CCCryptor *CCCryptorRef;

enum {
    kCCEncrypt = 0,
    kCCDecrypt,
};
typedef uint32_t CCOperation;

enum {
    kCCAlgorithmAES128 = 0,
    kCCAlgorithmAES = 0,
    kCCAlgorithmDES,
    kCCAlgorithm3DES,
    kCCAlgorithmCAST,
    kCCAlgorithmRC4,
    kCCAlgorithmRC2,
    kCCAlgorithmBlowfish,
};
typedef uint32_t CCAlgorithm;

enum {
    kCCOptionPKCS7Padding = 0x0001,
    kCCOptionECBMode = 0x0002,
};
typedef uint32_t CCOptions;

enum {
    kCCKeySizeAES128 = 16,
    kCCKeySizeAES192 = 24,
    kCCKeySizeAES256 = 32,
    kCCKeySizeDES = 8,
    kCCKeySize3DES = 24,
    kCCKeySizeMinCAST = 5,
    kCCKeySizeMaxCAST = 16,
    kCCKeySizeMinRC4 = 1,
    kCCKeySizeMaxRC4 = 512,
    kCCKeySizeMinRC2 = 1,
    kCCKeySizeMaxRC2 = 128,
    kCCKeySizeMinBlowfish = 8,
    kCCKeySizeMaxBlowfish = 56,
};

enum {
    kCCBlockSizeAES128 = 16,
    kCCBlockSizeDES = 8,
    kCCBlockSize3DES = 8,
    kCCBlockSizeCAST = 8,
    kCCBlockSizeRC2 = 8,
    kCCBlockSizeBlowfish = 8,
};

enum {
    kCCContextSizeAES128 = 404,
    kCCContextSizeDES = 240,
    kCCContextSize3DES = 496,
    kCCContextSizeCAST = 240,
    kCCContextSizeRC4 = 1072,
};

enum {
    kCCModeECB = 1,
    kCCModeCBC = 2,
    kCCModeCFB = 3,
    kCCModeCTR = 4,
    kCCModeOFB = 7,
    kCCModeRC4 = 9,
    kCCModeCFB8 = 10,
};
typedef uint32_t CCMode;

enum {
    ccNoPadding = 0,
    ccPKCS7Padding = 1,
};
typedef uint32_t CCPadding;

enum {
    kCCModeOptionCTR_BE = 2,
};
typedef uint32_t CCModeOptions;

CCCryptorStatus CCCryptorCreate(CCOperation op, CCAlgorithm alg, CCOptions options, const void *key,
                                size_t keyLength, const void *iv, CCCryptorRef *cryptorRef);
CCCryptorStatus CCCryptorCreateWithMode(CCOperation op, CCMode mode, CCAlgorithm alg, CCPadding padding,
                                        const void *iv, const void *key, size_t keyLength, const void *tweak,
                                        size_t tweakLength, int numRounds, CCModeOptions options,
                                        CCCryptorRef *cryptorRef);
CCCryptorStatus CCCryptorRelease(CCCryptorRef cryptorRef);
CCCryptorStatus CCCryptorUpdate(CCCryptorRef cryptorRef, const void *dataIn, size_t dataInLength, void *dataOut,
                                size_t dataOutAvailable, size_t *dataOutMoved);
CCCryptorStatus CCCryptorFinal(CCCryptorRef cryptorRef, void *dataOut, size_t dataOutAvailable,
                               size_t *dataOutMoved);
size_t CCCryptorGetOutputLength(CCCryptorRef cryptorRef, size_t inputLength, bool final);
CCCryptorStatus CCCryptorReset(CCCryptorRef cryptorRef, const void *iv);
CCCryptorStatus CCCrypt(CCOperation op, CCAlgorithm alg, CCOptions options, const void *key, size_t keyLength,
                        const void *iv, const void *dataIn, size_t dataInLength, void *dataOut,
                        size_t dataOutAvailable, size_t *dataOutMoved);

// MARK: CommonKeyDerivation.h

enum {
    kCCPBKDF2 = 2,
};
typedef uint32_t CCPBKDFAlgorithm;

enum {
    kCCPRFHmacAlgSHA1 = 1,
    kCCPRFHmacAlgSHA224 = 2,
    kCCPRFHmacAlgSHA256 = 3,
    kCCPRFHmacAlgSHA384 = 4,
    kCCPRFHmacAlgSHA512 = 5,
};
typedef uint32_t CCPseudoRandomAlgorithm;

int CCKeyDerivationPBKDF(CCPBKDFAlgorithm algorithm, const char *password, size_t passwordLen, const uint8_t *salt,
                         size_t saltLen, CCPseudoRandomAlgorithm prf, unsigned rounds, uint8_t *derivedKey,
                         size_t derivedKeyLen);
unsigned CCCalibratePBKDF(CCPBKDFAlgorithm algorithm, size_t passwordLen, size_t saltLen, CCPseudoRandomAlgorithm prf,
                          size_t derivedKeyLen, uint32_t msec);

// MARK: CommonSymmetricKeywrap.h

enum {
    kCCWRAPAES = 1,
};
typedef uint32_t CCWrappingAlgorithm;

extern const uint8_t *const CCrfc3394_iv;
extern const size_t CCrfc3394_ivLen;

int CCSymmetricKeyWrap(CCWrappingAlgorithm algorithm, const uint8_t *iv, const size_t ivLen, const uint8_t *kek,
                       size_t kekLen, const uint8_t *rawKey, size_t rawKeyLen, uint8_t *wrappedKey,
                       size_t *wrappedKeyLen);
int CCSymmetricKeyUnwrap(CCWrappingAlgorithm algorithm, const uint8_t *iv, const size_t ivLen, const uint8_t *kek,
                         size_t kekLen, const uint8_t *wrappedKey, size_t wrappedKeyLen, uint8_t *rawKey,
                         size_t *rawKeyLen);
size_t CCSymmetricWrappedSize(CCWrappingAlgorithm algorithm, size_t rawKeyLen);
size_t CCSymmetricUnwrappedSize(CCWrappingAlgorithm algorithm, size_t wrappedKeyLen);

// MARK: CommonRandom.h

typedef CCCryptorStatus CCRNGStatus;
CCRNGStatus CCRandomGenerateBytes(void *bytes, size_t count);

#ifdef __cplusplus
}
#endif

#endif
