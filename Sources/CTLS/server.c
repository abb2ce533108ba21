// Server contexts and sessions: the certificate (and its chain) and key handed over as DER by
// the Swift side, TLS 1.2 and 1.3 only, ALPN http/1.1 only, session resumption (tickets, and the
// server's session cache for TLS 1.2 ids), and SNI: a resolver may pick another context (another
// certificate) for the name the client asks for.
#include "CTLS.h"
#include "ossl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)

struct ctls_server {
    SSL_CTX *ctx;
    ctls_name_resolver resolver;
    void *resolver_info;
};

/// Selects http/1.1 when the client offers it; otherwise no ALPN at all (never h2: the server
/// speaks HTTP/1.1 only, and a client told nothing falls back to it).
static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    unsigned int i = 0;
    while (i < inlen) {
        unsigned int length = in[i];
        if (i + 1 + length > inlen) break;
        if (length == 8 && memcmp(in + i + 1, "http/1.1", 8) == 0) {
            *out = in + i + 1;
            *outlen = (unsigned char)length;
            return SSL_TLSEXT_ERR_OK;
        }
        i += 1 + length;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

/// SNI: the resolver may answer the name with another context; otherwise this one serves.
static int choose_by_name(SSL *ssl, int *alert, void *arg) {
    (void)alert;
    ctls_server *server = arg;
    const char *name = ossl.SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    if (!name || !server->resolver) return SSL_TLSEXT_ERR_OK;
    ctls_server *chosen = server->resolver(name, server->resolver_info);
    if (chosen && chosen != server) ossl.SSL_set_SSL_CTX(ssl, chosen->ctx);
    return SSL_TLSEXT_ERR_OK;
}

ctls_server *ctls_server_new(const unsigned char *const *certificates, const size_t *lengths, size_t count,
                             const unsigned char *key, size_t key_length, char *error, size_t error_size) {
    if (ctls_ensure_loaded(error, error_size) != 0) return NULL;
    if (count == 0) { ctls_copy_error(error, error_size, "no certificate"); return NULL; }
    SSL_CTX *ctx = ossl.SSL_CTX_new(ossl.TLS_server_method());
    if (!ctx) { ctls_describe(error, error_size, "cannot make a TLS context"); return NULL; }
    ctls_server *server = calloc(1, sizeof *server);
    if (!server) { ossl.SSL_CTX_free(ctx); ctls_copy_error(error, error_size, "out of memory"); return NULL; }
    server->ctx = ctx;
    ossl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    ossl.SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    static const unsigned char session_context[] = "stubserver";
    ossl.SSL_CTX_set_session_id_context(ctx, session_context, sizeof session_context - 1);
    ossl.SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
    ossl.SSL_CTX_callback_ctrl(ctx, SSL_CTRL_SET_TLSEXT_SERVERNAME_CB, (void (*)(void))choose_by_name);
    ossl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_TLSEXT_SERVERNAME_ARG, 0, server);
    for (size_t i = 0; i < count; i++) {
        const unsigned char *p = certificates[i];
        X509 *certificate = ossl.d2i_X509(NULL, &p, (long)lengths[i]);
        if (!certificate) {
            char reason[200];
            ctls_describe(reason, sizeof reason, "not an X.509 certificate");
            if (error && error_size) snprintf(error, error_size, "certificate %zu: %s", i + 1, reason);
            ctls_server_free(server);
            return NULL;
        }
        int used;
        if (i == 0) {
            used = ossl.SSL_CTX_use_certificate(ctx, certificate);
            ossl.X509_free(certificate); // the context holds its own reference
        } else {
            used = (int)ossl.SSL_CTX_ctrl(ctx, SSL_CTRL_CHAIN_CERT, 0, certificate); // takes it
            if (used != 1) ossl.X509_free(certificate);
        }
        if (used != 1) {
            char reason[200];
            ctls_describe(reason, sizeof reason, "refused");
            if (error && error_size) snprintf(error, error_size, "certificate %zu: %s", i + 1, reason);
            ctls_server_free(server);
            return NULL;
        }
    }
    const unsigned char *p = key;
    EVP_PKEY *pkey = ossl.d2i_AutoPrivateKey(NULL, &p, (long)key_length);
    if (!pkey) {
        ctls_describe(error, error_size, "not a private key OpenSSL can read");
        ctls_server_free(server);
        return NULL;
    }
    int used = ossl.SSL_CTX_use_PrivateKey(ctx, pkey);
    ossl.EVP_PKEY_free(pkey);
    if (used != 1 || ossl.SSL_CTX_check_private_key(ctx) != 1) {
        ossl.ERR_clear_error();
        ctls_copy_error(error, error_size, "the key does not match the certificate");
        ctls_server_free(server);
        return NULL;
    }
    return server;
}

void ctls_server_free(ctls_server *server) {
    if (!server) return;
    ossl.SSL_CTX_free(server->ctx);
    free(server);
}

void ctls_server_set_resolver(ctls_server *server, ctls_name_resolver resolver, void *info) {
    server->resolver = resolver;
    server->resolver_info = info;
}

ctls_session *ctls_server_session_new(ctls_server *server, char *error, size_t error_size) {
    ctls_session *session = ctls_session_over_memory(server->ctx, error, error_size);
    if (session) ossl.SSL_set_accept_state(session->ssl);
    return session;
}

#elif !defined(__APPLE__) // Apple platforms: securetransport.c

ctls_server *ctls_server_new(const unsigned char *const *certificates, const size_t *lengths, size_t count,
                             const unsigned char *key, size_t key_length, char *error, size_t error_size) {
    (void)certificates; (void)lengths; (void)count; (void)key; (void)key_length;
    ctls_load(error, error_size);
    return NULL;
}
void ctls_server_free(ctls_server *server) { (void)server; }
void ctls_server_set_resolver(ctls_server *server, ctls_name_resolver resolver, void *info) {
    (void)server; (void)resolver; (void)info;
}
ctls_session *ctls_server_session_new(ctls_server *server, char *error, size_t error_size) {
    (void)server;
    ctls_load(error, error_size);
    return NULL;
}

#endif
