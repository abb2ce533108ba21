// Keys for the local certificate authority: P-256 key pairs made and used by libcrypto, handed
// to the Swift side as DER (PKCS #8 for the private key, SubjectPublicKeyInfo for the public
// one). The certificates themselves are written in Swift (Sources/Certificates), so that one
// encoder serves Linux and Apple platforms, where Security makes and uses the keys instead.
#include "CTLS.h"
#include "ossl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)

/// The key in `der`, or NULL with why.
static EVP_PKEY *read_key(const unsigned char *der, size_t length, char *error, size_t error_size) {
    const unsigned char *p = der;
    EVP_PKEY *key = ossl.d2i_AutoPrivateKey(NULL, &p, (long)length);
    if (!key) ctls_describe(error, error_size, "not a private key OpenSSL can read");
    return key;
}

long ctls_key_generate_p256(unsigned char *out, size_t capacity, char *error, size_t error_size) {
    if (ctls_ensure_loaded(error, error_size) != 0) return -1;
    EVP_PKEY_CTX *context = ossl.EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    EVP_PKEY *key = NULL;
    long result = -1;
    if (!context || ossl.EVP_PKEY_keygen_init(context) != 1
        || ossl.EVP_PKEY_CTX_ctrl(context, EVP_PKEY_EC, EVP_PKEY_OP_PARAMGEN | EVP_PKEY_OP_KEYGEN,
                                  EVP_PKEY_CTRL_EC_PARAMGEN_CURVE_NID, NID_X9_62_prime256v1, NULL) <= 0
        || ossl.EVP_PKEY_keygen(context, &key) != 1) {
        ctls_describe(error, error_size, "cannot generate a P-256 key");
    } else {
        PKCS8_PRIV_KEY_INFO *info = ossl.EVP_PKEY2PKCS8(key);
        int length = info ? ossl.i2d_PKCS8_PRIV_KEY_INFO(info, NULL) : -1;
        if (length <= 0 || (size_t)length > capacity) {
            ctls_describe(error, error_size, "cannot encode the key");
        } else {
            unsigned char *p = out;
            result = ossl.i2d_PKCS8_PRIV_KEY_INFO(info, &p);
        }
        if (info) ossl.PKCS8_PRIV_KEY_INFO_free(info);
    }
    if (key) ossl.EVP_PKEY_free(key);
    if (context) ossl.EVP_PKEY_CTX_free(context);
    return result;
}

long ctls_key_public_info(const unsigned char *key_der, size_t key_length, unsigned char *out, size_t capacity,
                          char *error, size_t error_size) {
    if (ctls_ensure_loaded(error, error_size) != 0) return -1;
    EVP_PKEY *key = read_key(key_der, key_length, error, error_size);
    if (!key) return -1;
    long result = -1;
    int length = ossl.i2d_PUBKEY(key, NULL);
    if (length <= 0 || (size_t)length > capacity) {
        ctls_describe(error, error_size, "cannot encode the public key");
    } else {
        unsigned char *p = out;
        result = ossl.i2d_PUBKEY(key, &p);
    }
    ossl.EVP_PKEY_free(key);
    return result;
}

long ctls_key_sign_sha256(const unsigned char *key_der, size_t key_length, const void *message, size_t count,
                          unsigned char *out, size_t capacity, char *error, size_t error_size) {
    if (ctls_ensure_loaded(error, error_size) != 0) return -1;
    EVP_PKEY *key = read_key(key_der, key_length, error, error_size);
    if (!key) return -1;
    EVP_MD_CTX *digest = ossl.EVP_MD_CTX_new();
    long result = -1;
    size_t length = capacity;
    if (!digest || ossl.EVP_DigestSignInit(digest, NULL, ossl.EVP_sha256(), NULL, key) != 1
        || ossl.EVP_DigestUpdate(digest, message, count) != 1
        || ossl.EVP_DigestSignFinal(digest, NULL, &length) != 1 || length > capacity
        || ossl.EVP_DigestSignFinal(digest, out, &length) != 1) {
        ctls_describe(error, error_size, "cannot sign");
    } else {
        result = (long)length;
    }
    if (digest) ossl.EVP_MD_CTX_free(digest);
    ossl.EVP_PKEY_free(key);
    return result;
}

#else

/// Not through CTLS here: on Apple platforms Security makes and uses the keys, in Swift
/// (SigningKey+Security.swift), and `ctls_load` answers for TLS serving, which is there.
static void keys_unavailable(char *error, size_t error_size) {
#if defined(__APPLE__)
    if (error && error_size) snprintf(error, error_size, "keys are made by Security on Apple platforms, not CTLS");
#else
    ctls_load(error, error_size);
#endif
}

long ctls_key_generate_p256(unsigned char *out, size_t capacity, char *error, size_t error_size) {
    (void)out; (void)capacity;
    keys_unavailable(error, error_size);
    return -1;
}
long ctls_key_public_info(const unsigned char *key_der, size_t key_length, unsigned char *out, size_t capacity,
                          char *error, size_t error_size) {
    (void)key_der; (void)key_length; (void)out; (void)capacity;
    keys_unavailable(error, error_size);
    return -1;
}
long ctls_key_sign_sha256(const unsigned char *key_der, size_t key_length, const void *message, size_t count,
                          unsigned char *out, size_t capacity, char *error, size_t error_size) {
    (void)key_der; (void)key_length; (void)message; (void)count; (void)out; (void)capacity;
    keys_unavailable(error, error_size);
    return -1;
}

#endif
