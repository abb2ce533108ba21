// The OpenSSL functions CTLS uses, looked up by name at run time (see include/CTLS.h for why).
// Internal to CTLS: tls.c loads the table; client, server and key code call through it.
// Declared with the signatures OpenSSL 1.1 and 3 share; OpenSSL's own headers are not needed.
#ifndef CTLS_OSSL_H
#define CTLS_OSSL_H

#if defined(__linux__)
#include <stddef.h>
#include <stdint.h>

typedef struct ossl_ctx SSL_CTX;
typedef struct ossl_ssl SSL;
typedef struct ossl_method SSL_METHOD;
typedef struct ossl_bio BIO;
typedef struct ossl_bio_method BIO_METHOD;
typedef struct ossl_param X509_VERIFY_PARAM;
typedef struct ossl_x509 X509;
typedef struct ossl_pkey EVP_PKEY;
typedef struct ossl_pkey_ctx EVP_PKEY_CTX;
typedef struct ossl_md_ctx EVP_MD_CTX;
typedef struct ossl_md EVP_MD;
typedef struct ossl_pkcs8 PKCS8_PRIV_KEY_INFO;
typedef struct ossl_engine ENGINE;

// Constants from ssl.h / tls1.h / x509_vfy.h / evp.h / obj_mac.h, stable across 1.1 and 3.
#define SSL_VERIFY_PEER 0x01
#define SSL_ERROR_NONE 0
#define SSL_ERROR_WANT_READ 2
#define SSL_ERROR_WANT_WRITE 3
#define SSL_ERROR_SYSCALL 5
#define SSL_ERROR_ZERO_RETURN 6
#define SSL_CTRL_SET_TLSEXT_SERVERNAME_CB 53
#define SSL_CTRL_SET_TLSEXT_SERVERNAME_ARG 54
#define SSL_CTRL_SET_TLSEXT_HOSTNAME 55
#define SSL_CTRL_CHAIN_CERT 89
#define SSL_CTRL_SET_MIN_PROTO_VERSION 123
#define TLSEXT_NAMETYPE_host_name 0
#define SSL_TLSEXT_ERR_OK 0
#define SSL_TLSEXT_ERR_NOACK 3
#define TLS1_2_VERSION 0x0303
#define X509_V_OK 0
#define SSL_OP_CIPHER_SERVER_PREFERENCE 0x00400000UL
#define SSL_OP_NO_RENEGOTIATION 0x40000000UL
#define EVP_PKEY_EC 408
#define NID_X9_62_prime256v1 415
#define EVP_PKEY_OP_PARAMGEN (1 << 1)
#define EVP_PKEY_OP_KEYGEN (1 << 2)
#define EVP_PKEY_CTRL_EC_PARAMGEN_CURVE_NID (0x1000 + 1)

typedef int (*ossl_alpn_select)(SSL *, const unsigned char **, unsigned char *, const unsigned char *,
                                unsigned int, void *);
typedef int (*ossl_servername)(SSL *, int *, void *);

struct ossl_functions {
    int (*OPENSSL_init_ssl)(uint64_t, const void *);
    const SSL_METHOD *(*TLS_client_method)(void);
    const SSL_METHOD *(*TLS_server_method)(void);
    SSL_CTX *(*SSL_CTX_new)(const SSL_METHOD *);
    void (*SSL_CTX_free)(SSL_CTX *);
    int (*SSL_CTX_set_default_verify_paths)(SSL_CTX *);
    int (*SSL_CTX_load_verify_locations)(SSL_CTX *, const char *, const char *);
    void (*SSL_CTX_set_verify)(SSL_CTX *, int, void *);
    long (*SSL_CTX_ctrl)(SSL_CTX *, int, long, void *);
    long (*SSL_CTX_callback_ctrl)(SSL_CTX *, int, void (*)(void));
    uint64_t (*SSL_CTX_set_options)(SSL_CTX *, uint64_t);
    int (*SSL_CTX_use_certificate)(SSL_CTX *, X509 *);
    int (*SSL_CTX_use_PrivateKey)(SSL_CTX *, EVP_PKEY *);
    int (*SSL_CTX_check_private_key)(const SSL_CTX *);
    void (*SSL_CTX_set_alpn_select_cb)(SSL_CTX *, ossl_alpn_select, void *);
    int (*SSL_CTX_set_session_id_context)(SSL_CTX *, const unsigned char *, unsigned int);
    SSL *(*SSL_new)(SSL_CTX *);
    void (*SSL_free)(SSL *);
    void (*SSL_set_bio)(SSL *, BIO *, BIO *);
    void (*SSL_set_connect_state)(SSL *);
    void (*SSL_set_accept_state)(SSL *);
    long (*SSL_ctrl)(SSL *, int, long, void *);
    int (*SSL_set1_host)(SSL *, const char *);
    X509_VERIFY_PARAM *(*SSL_get0_param)(SSL *);
    int (*SSL_set_alpn_protos)(SSL *, const unsigned char *, unsigned int);
    const char *(*SSL_get_servername)(const SSL *, const int);
    SSL_CTX *(*SSL_set_SSL_CTX)(SSL *, SSL_CTX *);
    int (*SSL_do_handshake)(SSL *);
    int (*SSL_shutdown)(SSL *);
    int (*SSL_read)(SSL *, void *, int);
    int (*SSL_write)(SSL *, const void *, int);
    int (*SSL_get_error)(const SSL *, int);
    long (*SSL_get_verify_result)(const SSL *);
    int (*X509_VERIFY_PARAM_set1_ip_asc)(X509_VERIFY_PARAM *, const char *);
    const char *(*X509_verify_cert_error_string)(long);
    unsigned long (*ERR_get_error)(void);
    void (*ERR_error_string_n)(unsigned long, char *, size_t);
    void (*ERR_clear_error)(void);
    const BIO_METHOD *(*BIO_s_mem)(void);
    BIO *(*BIO_new)(const BIO_METHOD *);
    void (*BIO_free)(BIO *);
    int (*BIO_write)(BIO *, const void *, int);
    int (*BIO_read)(BIO *, void *, int);
    size_t (*BIO_ctrl_pending)(BIO *);
    X509 *(*d2i_X509)(X509 **, const unsigned char **, long);
    void (*X509_free)(X509 *);
    EVP_PKEY *(*d2i_AutoPrivateKey)(EVP_PKEY **, const unsigned char **, long);
    int (*i2d_PUBKEY)(EVP_PKEY *, unsigned char **);
    void (*EVP_PKEY_free)(EVP_PKEY *);
    EVP_PKEY_CTX *(*EVP_PKEY_CTX_new_id)(int, ENGINE *);
    void (*EVP_PKEY_CTX_free)(EVP_PKEY_CTX *);
    int (*EVP_PKEY_keygen_init)(EVP_PKEY_CTX *);
    int (*EVP_PKEY_CTX_ctrl)(EVP_PKEY_CTX *, int, int, int, int, void *);
    int (*EVP_PKEY_keygen)(EVP_PKEY_CTX *, EVP_PKEY **);
    PKCS8_PRIV_KEY_INFO *(*EVP_PKEY2PKCS8)(const EVP_PKEY *);
    int (*i2d_PKCS8_PRIV_KEY_INFO)(PKCS8_PRIV_KEY_INFO *, unsigned char **);
    void (*PKCS8_PRIV_KEY_INFO_free)(PKCS8_PRIV_KEY_INFO *);
    EVP_MD_CTX *(*EVP_MD_CTX_new)(void);
    void (*EVP_MD_CTX_free)(EVP_MD_CTX *);
    const EVP_MD *(*EVP_sha256)(void);
    int (*EVP_DigestSignInit)(EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *, ENGINE *, EVP_PKEY *);
    int (*EVP_DigestUpdate)(EVP_MD_CTX *, const void *, size_t);
    int (*EVP_DigestSignFinal)(EVP_MD_CTX *, unsigned char *, size_t *);
};

extern struct ossl_functions ossl;

/// Loads the table once; 0 when every function was found.
int ctls_ensure_loaded(char *error, size_t error_size);
/// The first queued OpenSSL error, else `fallback`; the queue is cleared.
void ctls_describe(char *error, size_t size, const char *fallback);
void ctls_copy_error(char *error, size_t size, const char *text);

/// Sessions over memory buffers (client and server alike).
struct ctls_session { SSL *ssl; BIO *in; BIO *out; };
/// A session for `ctx` with fresh memory buffers, or NULL with why.
struct ctls_session *ctls_session_over_memory(SSL_CTX *ctx, char *error, size_t error_size);

#endif
#endif
