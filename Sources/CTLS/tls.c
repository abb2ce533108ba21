// See include/CTLS.h for why this exists. OpenSSL's own headers are not needed (and may not be
// installed): the few functions used are declared in ossl.h with the signatures OpenSSL 1.1 and
// 3 share, and looked up by name here. Client sessions are below; server contexts and sessions
// are in server.c, keys and signatures in keys.c.
#include "CTLS.h"
#include "ossl.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#if defined(__linux__)
#include <arpa/inet.h>
#include <dlfcn.h>
#include <pthread.h>

struct ossl_functions ossl;

struct ctls_context { SSL_CTX *ctx; };

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
    // STUBSERVER_LIBSSL and STUBSERVER_LIBCRYPTO name the libraries to load instead (an
    // OpenSSL of one's own; the tests use them to run as if OpenSSL were not installed).
    const char *ssl_override = getenv("STUBSERVER_LIBSSL");
    const char *crypto_override = getenv("STUBSERVER_LIBCRYPTO");
    const char *const ssl_given[] = {ssl_override, NULL};
    const char *const crypto_given[] = {crypto_override, NULL};
    void *ssl = open_first(ssl_override ? ssl_given : ssl_names);
    void *crypto = open_first(crypto_override ? crypto_given : crypto_names);
    if (!ssl || !crypto) {
        snprintf(load_error, sizeof load_error,
                 "cannot load OpenSSL (libssl.so.3 or libssl.so.1.1): %s; install the libssl3 package "
                 "(Debian, Ubuntu: apt-get install libssl3; Fedora, RHEL: dnf install openssl-libs; "
                 "Alpine: apk add libssl3)", dlerror());
        return;
    }
    LOOKUP(ssl, OPENSSL_init_ssl);
    LOOKUP(ssl, TLS_client_method);
    LOOKUP(ssl, TLS_server_method);
    LOOKUP(ssl, SSL_CTX_new);
    LOOKUP(ssl, SSL_CTX_free);
    LOOKUP(ssl, SSL_CTX_set_default_verify_paths);
    LOOKUP(ssl, SSL_CTX_load_verify_locations);
    LOOKUP(ssl, SSL_CTX_set_verify);
    LOOKUP(ssl, SSL_CTX_ctrl);
    LOOKUP(ssl, SSL_CTX_callback_ctrl);
    LOOKUP(ssl, SSL_CTX_set_options);
    LOOKUP(ssl, SSL_CTX_use_certificate);
    LOOKUP(ssl, SSL_CTX_use_PrivateKey);
    LOOKUP(ssl, SSL_CTX_check_private_key);
    LOOKUP(ssl, SSL_CTX_set_alpn_select_cb);
    LOOKUP(ssl, SSL_CTX_set_session_id_context);
    LOOKUP(ssl, SSL_new);
    LOOKUP(ssl, SSL_free);
    LOOKUP(ssl, SSL_set_bio);
    LOOKUP(ssl, SSL_set_connect_state);
    LOOKUP(ssl, SSL_set_accept_state);
    LOOKUP(ssl, SSL_ctrl);
    LOOKUP(ssl, SSL_set1_host);
    LOOKUP(ssl, SSL_get0_param);
    LOOKUP(ssl, SSL_set_alpn_protos);
    LOOKUP(ssl, SSL_get_servername);
    LOOKUP(ssl, SSL_set_SSL_CTX);
    LOOKUP(ssl, SSL_do_handshake);
    LOOKUP(ssl, SSL_shutdown);
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
    LOOKUP(crypto, d2i_X509);
    LOOKUP(crypto, X509_free);
    LOOKUP(crypto, d2i_AutoPrivateKey);
    LOOKUP(crypto, i2d_PUBKEY);
    LOOKUP(crypto, EVP_PKEY_free);
    LOOKUP(crypto, EVP_PKEY_CTX_new_id);
    LOOKUP(crypto, EVP_PKEY_CTX_free);
    LOOKUP(crypto, EVP_PKEY_keygen_init);
    LOOKUP(crypto, EVP_PKEY_CTX_ctrl);
    LOOKUP(crypto, EVP_PKEY_keygen);
    LOOKUP(crypto, EVP_PKEY2PKCS8);
    LOOKUP(crypto, i2d_PKCS8_PRIV_KEY_INFO);
    LOOKUP(crypto, PKCS8_PRIV_KEY_INFO_free);
    LOOKUP(crypto, EVP_MD_CTX_new);
    LOOKUP(crypto, EVP_MD_CTX_free);
    LOOKUP(crypto, EVP_sha256);
    LOOKUP(crypto, EVP_DigestSignInit);
    LOOKUP(crypto, EVP_DigestUpdate);
    LOOKUP(crypto, EVP_DigestSignFinal);
    if (ossl.OPENSSL_init_ssl(0, NULL) != 1) {
        snprintf(load_error, sizeof load_error, "OpenSSL did not initialise");
        return;
    }
    load_result = 0;
}

void ctls_copy_error(char *error, size_t size, const char *text) {
    if (error && size) snprintf(error, size, "%s", text);
}

void ctls_describe(char *error, size_t size, const char *fallback) {
    unsigned long code = ossl.ERR_get_error();
    if (code && error && size) {
        ossl.ERR_error_string_n(code, error, size);
    } else {
        ctls_copy_error(error, size, fallback);
    }
    ossl.ERR_clear_error();
}

int ctls_ensure_loaded(char *error, size_t error_size) {
    pthread_once(&load_once, load);
    if (load_result != 0) ctls_copy_error(error, error_size, load_error);
    return load_result;
}

int ctls_load(char *error, size_t error_size) {
    return ctls_ensure_loaded(error, error_size);
}

ctls_context *ctls_context_new(const char *ca_file, char *error, size_t error_size) {
    if (ctls_load(error, error_size) != 0) return NULL;
    SSL_CTX *ctx = ossl.SSL_CTX_new(ossl.TLS_client_method());
    if (!ctx) { ctls_describe(error, error_size, "cannot make a TLS context"); return NULL; }
    ossl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    ossl.SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    // The system's store always (SSL_CERT_FILE and SSL_CERT_DIR are honoured here), the given
    // file in addition.
    ossl.SSL_CTX_set_default_verify_paths(ctx);
    if (ca_file && ossl.SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) {
        char reason[200];
        ctls_describe(reason, sizeof reason, "no certificates in it");
        if (error && error_size) snprintf(error, error_size, "cannot read CA file %s: %s", ca_file, reason);
        ossl.SSL_CTX_free(ctx);
        return NULL;
    }
    ctls_context *context = calloc(1, sizeof *context);
    if (!context) { ossl.SSL_CTX_free(ctx); ctls_copy_error(error, error_size, "out of memory"); return NULL; }
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

struct ctls_session *ctls_session_over_memory(SSL_CTX *ctx, char *error, size_t error_size) {
    SSL *ssl = ossl.SSL_new(ctx);
    if (!ssl) { ctls_describe(error, error_size, "cannot make a TLS session"); return NULL; }
    BIO *in = ossl.BIO_new(ossl.BIO_s_mem());
    BIO *out = ossl.BIO_new(ossl.BIO_s_mem());
    ctls_session *session = calloc(1, sizeof *session);
    if (!in || !out || !session) {
        if (in) ossl.BIO_free(in);
        if (out) ossl.BIO_free(out);
        free(session);
        ossl.SSL_free(ssl);
        ctls_copy_error(error, error_size, "out of memory");
        return NULL;
    }
    ossl.SSL_set_bio(ssl, in, out); // the session owns them now
    session->ssl = ssl;
    session->in = in;
    session->out = out;
    return session;
}

ctls_session *ctls_session_new(ctls_context *context, const char *host, char *error, size_t error_size) {
    ctls_session *session = ctls_session_over_memory(context->ctx, error, error_size);
    if (!session) return NULL;
    SSL *ssl = session->ssl;
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
        ctls_describe(error, error_size, "cannot set the name to verify");
        ctls_session_free(session);
        return NULL;
    }
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
                snprintf(error, error_size, "certificate verify failed: %s",
                         ossl.X509_verify_cert_error_string(verify));
            ossl.ERR_clear_error();
        } else {
            ctls_describe(error, error_size, "the TLS session failed");
        }
        return CTLS_ERROR;
    }
    }
}

int ctls_handshake(ctls_session *session, char *error, size_t error_size) {
    int result = ossl.SSL_do_handshake(session->ssl);
    return result == 1 ? CTLS_OK : (int)outcome(session, result, error, error_size);
}

void ctls_close_notify(ctls_session *session) {
    ossl.SSL_shutdown(session->ssl); // 0: ours is written, the peer's not awaited
    ossl.ERR_clear_error();
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

#elif !defined(__APPLE__) // neither Linux nor Apple (securetransport.c): no TLS here

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
void ctls_close_notify(ctls_session *session) { (void)session; }
long ctls_read(ctls_session *session, void *buffer, size_t capacity, char *error, size_t error_size) {
    (void)session; (void)buffer; (void)capacity; ctls_load(error, error_size); return CTLS_ERROR;
}
long ctls_write(ctls_session *session, const void *bytes, size_t count, char *error, size_t error_size) {
    (void)session; (void)bytes; (void)count; ctls_load(error, error_size); return CTLS_ERROR;
}

#endif
