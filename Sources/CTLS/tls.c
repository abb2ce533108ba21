// See include/CTLS.h for why this exists. OpenSSL's own headers are not needed (and may not be
// installed): the few functions used are declared here with the signatures OpenSSL 1.1 and 3
// share, and looked up by name.
#include "CTLS.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#if defined(__linux__)
#include <arpa/inet.h>
#include <dlfcn.h>
#include <pthread.h>

typedef struct ossl_ctx SSL_CTX;
typedef struct ossl_ssl SSL;
typedef struct ossl_method SSL_METHOD;
typedef struct ossl_bio BIO;
typedef struct ossl_bio_method BIO_METHOD;
typedef struct ossl_param X509_VERIFY_PARAM;

// Constants from ssl.h / tls1.h / x509_vfy.h, stable across 1.1 and 3.
#define SSL_VERIFY_PEER 0x01
#define SSL_ERROR_NONE 0
#define SSL_ERROR_WANT_READ 2
#define SSL_ERROR_WANT_WRITE 3
#define SSL_ERROR_SYSCALL 5
#define SSL_ERROR_ZERO_RETURN 6
#define SSL_CTRL_SET_TLSEXT_HOSTNAME 55
#define SSL_CTRL_SET_MIN_PROTO_VERSION 123
#define TLSEXT_NAMETYPE_host_name 0
#define TLS1_2_VERSION 0x0303
#define X509_V_OK 0

static struct {
    int (*OPENSSL_init_ssl)(uint64_t, const void *);
    const SSL_METHOD *(*TLS_client_method)(void);
    SSL_CTX *(*SSL_CTX_new)(const SSL_METHOD *);
    void (*SSL_CTX_free)(SSL_CTX *);
    int (*SSL_CTX_set_default_verify_paths)(SSL_CTX *);
    int (*SSL_CTX_load_verify_locations)(SSL_CTX *, const char *, const char *);
    void (*SSL_CTX_set_verify)(SSL_CTX *, int, void *);
    long (*SSL_CTX_ctrl)(SSL_CTX *, int, long, void *);
    SSL *(*SSL_new)(SSL_CTX *);
    void (*SSL_free)(SSL *);
    void (*SSL_set_bio)(SSL *, BIO *, BIO *);
    void (*SSL_set_connect_state)(SSL *);
    long (*SSL_ctrl)(SSL *, int, long, void *);
    int (*SSL_set1_host)(SSL *, const char *);
    X509_VERIFY_PARAM *(*SSL_get0_param)(SSL *);
    int (*SSL_set_alpn_protos)(SSL *, const unsigned char *, unsigned int);
    int (*SSL_do_handshake)(SSL *);
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
} ossl;

struct ctls_context { SSL_CTX *ctx; };
struct ctls_session { SSL *ssl; BIO *in; BIO *out; };

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_result = -1;
static char load_error[256] = "not loaded";

static void *open_first(const char *const *names) {
    for (; *names; names++) {
        void *handle = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (handle) return handle;
    }
    return NULL;
}

#define LOOKUP(handle, name)                                                         \
    do {                                                                             \
        *(void **)(&ossl.name) = dlsym(handle, #name);                               \
        if (!ossl.name) {                                                            \
            snprintf(load_error, sizeof load_error, "OpenSSL has no %s", #name);     \
            return;                                                                  \
        }                                                                            \
    } while (0)

static void load(void) {
    // The versions share these functions; 3 first (current distributions), then 1.1.
    static const char *const ssl_names[] = {"libssl.so.3", "libssl.so.1.1", "libssl.so", NULL};
    static const char *const crypto_names[] = {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so", NULL};
    void *ssl = open_first(ssl_names);
    void *crypto = open_first(crypto_names);
    if (!ssl || !crypto) {
        snprintf(load_error, sizeof load_error, "cannot load OpenSSL (libssl.so.3 or libssl.so.1.1): %s", dlerror());
        return;
    }
    LOOKUP(ssl, OPENSSL_init_ssl);
    LOOKUP(ssl, TLS_client_method);
    LOOKUP(ssl, SSL_CTX_new);
    LOOKUP(ssl, SSL_CTX_free);
    LOOKUP(ssl, SSL_CTX_set_default_verify_paths);
    LOOKUP(ssl, SSL_CTX_load_verify_locations);
    LOOKUP(ssl, SSL_CTX_set_verify);
    LOOKUP(ssl, SSL_CTX_ctrl);
    LOOKUP(ssl, SSL_new);
    LOOKUP(ssl, SSL_free);
    LOOKUP(ssl, SSL_set_bio);
    LOOKUP(ssl, SSL_set_connect_state);
    LOOKUP(ssl, SSL_ctrl);
    LOOKUP(ssl, SSL_set1_host);
    LOOKUP(ssl, SSL_get0_param);
    LOOKUP(ssl, SSL_set_alpn_protos);
    LOOKUP(ssl, SSL_do_handshake);
    LOOKUP(ssl, SSL_read);
    LOOKUP(ssl, SSL_write);
    LOOKUP(ssl, SSL_get_error);
    LOOKUP(ssl, SSL_get_verify_result);
    LOOKUP(crypto, X509_VERIFY_PARAM_set1_ip_asc);
    LOOKUP(crypto, X509_verify_cert_error_string);
    LOOKUP(crypto, ERR_get_error);
    LOOKUP(crypto, ERR_error_string_n);
    LOOKUP(crypto, ERR_clear_error);
    LOOKUP(crypto, BIO_s_mem);
    LOOKUP(crypto, BIO_new);
    LOOKUP(crypto, BIO_free);
    LOOKUP(crypto, BIO_write);
    LOOKUP(crypto, BIO_read);
    LOOKUP(crypto, BIO_ctrl_pending);
    if (ossl.OPENSSL_init_ssl(0, NULL) != 1) {
        snprintf(load_error, sizeof load_error, "OpenSSL did not initialise");
        return;
    }
    load_result = 0;
}

static void copy(char *error, size_t size, const char *text) {
    if (error && size) snprintf(error, size, "%s", text);
}

/// The first queued OpenSSL error, else `fallback`.
static void describe(char *error, size_t size, const char *fallback) {
    unsigned long code = ossl.ERR_get_error();
    if (code && error && size) {
        ossl.ERR_error_string_n(code, error, size);
    } else {
        copy(error, size, fallback);
    }
    ossl.ERR_clear_error();
}

int ctls_load(char *error, size_t error_size) {
    pthread_once(&load_once, load);
    if (load_result != 0) copy(error, error_size, load_error);
    return load_result;
}

ctls_context *ctls_context_new(const char *ca_file, char *error, size_t error_size) {
    if (ctls_load(error, error_size) != 0) return NULL;
    SSL_CTX *ctx = ossl.SSL_CTX_new(ossl.TLS_client_method());
    if (!ctx) { describe(error, error_size, "cannot make a TLS context"); return NULL; }
    ossl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    ossl.SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    // The system's store always (SSL_CERT_FILE and SSL_CERT_DIR are honoured here), the given
    // file in addition.
    ossl.SSL_CTX_set_default_verify_paths(ctx);
    if (ca_file && ossl.SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) {
        char reason[200];
        describe(reason, sizeof reason, "no certificates in it");
        if (error && error_size) snprintf(error, error_size, "cannot read CA file %s: %s", ca_file, reason);
        ossl.SSL_CTX_free(ctx);
        return NULL;
    }
    ctls_context *context = calloc(1, sizeof *context);
    if (!context) { ossl.SSL_CTX_free(ctx); copy(error, error_size, "out of memory"); return NULL; }
    context->ctx = ctx;
    return context;
}

void ctls_context_free(ctls_context *context) {
    if (!context) return;
    ossl.SSL_CTX_free(context->ctx);
    free(context);
}

static int is_address(const char *host) {
    unsigned char buffer[16];
    return inet_pton(AF_INET, host, buffer) == 1 || inet_pton(AF_INET6, host, buffer) == 1;
}

ctls_session *ctls_session_new(ctls_context *context, const char *host, char *error, size_t error_size) {
    SSL *ssl = ossl.SSL_new(context->ctx);
    if (!ssl) { describe(error, error_size, "cannot make a TLS session"); return NULL; }
    BIO *in = ossl.BIO_new(ossl.BIO_s_mem());
    BIO *out = ossl.BIO_new(ossl.BIO_s_mem());
    if (!in || !out) {
        if (in) ossl.BIO_free(in);
        if (out) ossl.BIO_free(out);
        ossl.SSL_free(ssl);
        copy(error, error_size, "out of memory");
        return NULL;
    }
    ossl.SSL_set_bio(ssl, in, out); // the session owns them now
    ossl.SSL_set_connect_state(ssl);
    int named;
    if (is_address(host)) {
        named = ossl.X509_VERIFY_PARAM_set1_ip_asc(ossl.SSL_get0_param(ssl), host);
    } else {
        named = ossl.SSL_set1_host(ssl, host);
        ossl.SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)host);
    }
    // The proxy speaks HTTP/1.1 only: say so, so a server that offers h2 does not pick it.
    static const unsigned char alpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    ossl.SSL_set_alpn_protos(ssl, alpn, sizeof alpn);
    if (named != 1) {
        describe(error, error_size, "cannot set the name to verify");
        ossl.SSL_free(ssl);
        return NULL;
    }
    ctls_session *session = calloc(1, sizeof *session);
    if (!session) { ossl.SSL_free(ssl); copy(error, error_size, "out of memory"); return NULL; }
    session->ssl = ssl;
    session->in = in;
    session->out = out;
    return session;
}

void ctls_session_free(ctls_session *session) {
    if (!session) return;
    ossl.SSL_free(session->ssl);
    free(session);
}

int ctls_feed(ctls_session *session, const void *bytes, size_t count) {
    const char *p = bytes;
    while (count > 0) {
        int chunk = count > 1 << 30 ? 1 << 30 : (int)count;
        int n = ossl.BIO_write(session->in, p, chunk);
        if (n <= 0) return CTLS_ERROR;
        p += n;
        count -= (size_t)n;
    }
    return CTLS_OK;
}

size_t ctls_outgoing(ctls_session *session) {
    return ossl.BIO_ctrl_pending(session->out);
}

long ctls_take_outgoing(ctls_session *session, void *buffer, size_t capacity) {
    int chunk = capacity > 1 << 30 ? 1 << 30 : (int)capacity;
    int n = ossl.BIO_read(session->out, buffer, chunk);
    return n > 0 ? n : 0;
}

/// Maps a failed call's result to one of ours, with why for errors.
static long outcome(ctls_session *session, int result, char *error, size_t error_size) {
    switch (ossl.SSL_get_error(session->ssl, result)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: // memory buffers never refuse a write; treat as needing input
        ossl.ERR_clear_error();
        return CTLS_WANT_READ;
    case SSL_ERROR_ZERO_RETURN:
        ossl.ERR_clear_error();
        return CTLS_CLOSED;
    default: {
        long verify = ossl.SSL_get_verify_result(session->ssl);
        if (verify != X509_V_OK) {
            if (error && error_size)
                snprintf(error, error_size, "certificate verify failed: %s", ossl.X509_verify_cert_error_string(verify));
            ossl.ERR_clear_error();
        } else {
            describe(error, error_size, "the TLS session failed");
        }
        return CTLS_ERROR;
    }
    }
}

int ctls_handshake(ctls_session *session, char *error, size_t error_size) {
    int result = ossl.SSL_do_handshake(session->ssl);
    return result == 1 ? CTLS_OK : (int)outcome(session, result, error, error_size);
}

long ctls_read(ctls_session *session, void *buffer, size_t capacity, char *error, size_t error_size) {
    int chunk = capacity > 1 << 30 ? 1 << 30 : (int)capacity;
    int n = ossl.SSL_read(session->ssl, buffer, chunk);
    return n > 0 ? n : outcome(session, n, error, error_size);
}

long ctls_write(ctls_session *session, const void *bytes, size_t count, char *error, size_t error_size) {
    int chunk = count > 1 << 30 ? 1 << 30 : (int)count;
    int n = ossl.SSL_write(session->ssl, bytes, chunk);
    return n > 0 ? n : outcome(session, n, error, error_size);
}

#else // not Linux: URLSession carries https (see the header)

int ctls_load(char *error, size_t error_size) {
    if (error && error_size) snprintf(error, error_size, "TLS through OpenSSL is used on Linux only");
    return -1;
}
ctls_context *ctls_context_new(const char *ca_file, char *error, size_t error_size) {
    (void)ca_file;
    ctls_load(error, error_size);
    return NULL;
}
void ctls_context_free(ctls_context *context) { (void)context; }
ctls_session *ctls_session_new(ctls_context *context, const char *host, char *error, size_t error_size) {
    (void)context; (void)host;
    ctls_load(error, error_size);
    return NULL;
}
void ctls_session_free(ctls_session *session) { (void)session; }
int ctls_feed(ctls_session *session, const void *bytes, size_t count) { (void)session; (void)bytes; (void)count; return CTLS_ERROR; }
size_t ctls_outgoing(ctls_session *session) { (void)session; return 0; }
long ctls_take_outgoing(ctls_session *session, void *buffer, size_t capacity) { (void)session; (void)buffer; (void)capacity; return 0; }
int ctls_handshake(ctls_session *session, char *error, size_t error_size) { (void)session; ctls_load(error, error_size); return CTLS_ERROR; }
long ctls_read(ctls_session *session, void *buffer, size_t capacity, char *error, size_t error_size) {
    (void)session; (void)buffer; (void)capacity; ctls_load(error, error_size); return CTLS_ERROR;
}
long ctls_write(ctls_session *session, const void *bytes, size_t count, char *error, size_t error_size) {
    (void)session; (void)bytes; (void)count; ctls_load(error, error_size); return CTLS_ERROR;
}

#endif
